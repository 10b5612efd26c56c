package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// A single-pass JSON reader for the two documents verify reads by the ten
// thousand: landing records and the landing lines of the event log.
// encoding/json spends ~15 µs on a record (it validates the whole input,
// then decodes it by reflection); walking it once and keeping the fields
// needed takes ~1 µs, and verify over 10,000 landings lives on that.

// maxDepth bounds nesting: a note is input, and must not exhaust the stack.
const maxDepth = 64

// scanner walks one JSON value, calling leaf for every scalar in it with
// its path: the keys of the objects around it, "" for an array element.
type scanner struct {
	b    []byte
	src  string
	i    int
	path [][]byte
	leaf func(path [][]byte, v val) error
}

// val is a scalar as the scanner found it: its text, and where it stands
// in the one string copy made of the document, so that the strings
// decoded are parts of that copy rather than a copy each.
type val struct {
	raw []byte
	src string
	at  int
}

// text is the scalar's text, a part of the document's copy.
func (v val) text() string { return v.src[v.at : v.at+len(v.raw)] }

// walkJSON checks that b is one JSON value (RFC 8259, white space around
// it allowed) and hands its scalars to leaf: strings with their quotes,
// numbers and literals as written. The path's keys are their text, not
// copied unless they hold an escape (compare them as string(key) == "...",
// which does not copy either).
func walkJSON(b []byte, leaf func(path [][]byte, v val) error) error {
	s := &scanner{b: b, src: string(b), leaf: leaf}
	if err := s.value(0); err != nil {
		return err
	}
	s.ws()
	if s.i != len(s.b) {
		return s.fail("text after the JSON value")
	}
	return nil
}

func (s *scanner) fail(what string) error {
	return fmt.Errorf("%s at byte %d", what, s.i)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) value(depth int) error {
	if depth > maxDepth {
		return s.fail("nesting too deep")
	}
	s.ws()
	if s.i >= len(s.b) {
		return s.fail("unexpected end")
	}
	start := s.i
	switch c := s.b[s.i]; {
	case c == '{':
		return s.container(depth, '}', true)
	case c == '[':
		return s.container(depth, ']', false)
	case c == '"':
		if err := s.str(); err != nil {
			return err
		}
	case c == '-' || c >= '0' && c <= '9':
		if err := s.num(); err != nil {
			return err
		}
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
				s.i += len(lit)
				break
			}
		}
		if s.i == start {
			return s.fail("invalid literal")
		}
	default:
		return s.fail(fmt.Sprintf("unexpected %q", c))
	}
	return s.leaf(s.path, val{raw: s.b[start:s.i], src: s.src, at: start})
}

// container reads an object (keyed) or an array up to its close.
func (s *scanner) container(depth int, close byte, keyed bool) error {
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == close {
		s.i++
		return nil
	}
	for {
		var key []byte
		if keyed {
			s.ws()
			start := s.i
			if s.i >= len(s.b) || s.b[s.i] != '"' {
				return s.fail("expected a key")
			}
			if err := s.str(); err != nil {
				return err
			}
			key = s.b[start+1 : s.i-1]
			if bytes.IndexByte(key, '\\') >= 0 {
				k, err := unquote(s.b[start:s.i])
				if err != nil {
					return err
				}
				key = []byte(k)
			}
			s.ws()
			if s.i >= len(s.b) || s.b[s.i] != ':' {
				return s.fail("expected ':'")
			}
			s.i++
		}
		s.path = append(s.path, key)
		err := s.value(depth + 1)
		s.path = s.path[:len(s.path)-1]
		if err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) {
			return s.fail("unexpected end")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case close:
			s.i++
			return nil
		default:
			return s.fail("expected ',' or a close")
		}
	}
}

func (s *scanner) str() error {
	s.i++
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return nil
		case c < 0x20:
			return s.fail("control character in a string")
		case c == '\\':
			if s.i+1 >= len(s.b) {
				return s.fail("unexpected end")
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) {
					return s.fail("unexpected end")
				}
				for _, h := range s.b[s.i+2 : s.i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return s.fail("invalid \\u escape")
					}
				}
				s.i += 6
			default:
				return s.fail("invalid escape")
			}
		default:
			s.i++
		}
	}
	return s.fail("unterminated string")
}

func (s *scanner) num() error {
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i, n = s.i+1, n+1
		}
		return n
	}
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		return s.fail("invalid number")
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return s.fail("invalid number")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return s.fail("invalid number")
		}
	}
	return nil
}

// unquote is a JSON string's value; only one with an escape, or bytes
// that are not UTF-8 (which encoding/json decodes as U+FFFD), pays for
// encoding/json.
func unquote(raw []byte) (string, error) {
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// field decoders: a value of the wrong type is an error, null leaves the
// field as it is.

func setString(dst *string, v val) error {
	if string(v.raw) == "null" {
		return nil
	}
	if v.raw[0] != '"' {
		return fmt.Errorf("expected a string, found %s", v.raw)
	}
	if bytes.IndexByte(v.raw, '\\') < 0 && utf8.Valid(v.raw) {
		t := v.text()
		*dst = t[1 : len(t)-1]
		return nil
	}
	s, err := unquote(v.raw)
	*dst = s
	return err
}

func setInt(dst *int, v val) error {
	if string(v.raw) == "null" {
		return nil
	}
	n, err := strconv.Atoi(v.text())
	if err != nil {
		return fmt.Errorf("expected an integer, found %s", v.raw)
	}
	*dst = n
	return nil
}

func setInt64(dst *int64, v val) error {
	if string(v.raw) == "null" {
		return nil
	}
	n, err := strconv.ParseInt(v.text(), 10, 64)
	if err != nil {
		return fmt.Errorf("expected an integer, found %s", v.raw)
	}
	*dst = n
	return nil
}

func setFloat(dst *float64, v val) error {
	if string(v.raw) == "null" {
		return nil
	}
	f, err := strconv.ParseFloat(v.text(), 64)
	if err != nil {
		return fmt.Errorf("expected a number, found %s", v.raw)
	}
	*dst = f
	return nil
}

func setBool(dst *bool, v val) error {
	switch string(v.raw) {
	case "null":
	case "true", "false":
		*dst = string(v.raw) == "true"
	default:
		return fmt.Errorf("expected true or false, found %s", v.raw)
	}
	return nil
}

// decode reads a note into r, field by field: keys this burl does not
// know are skipped (a later burl may add some within a version).
func (r *Record) decode(note []byte) error {
	return walkJSON(note, func(p [][]byte, v val) error {
		if len(p) == 0 {
			return fmt.Errorf("not a JSON object")
		}
		err := r.field(p, v)
		if err != nil {
			err = fmt.Errorf("%s: %w", pathName(p), err)
		}
		return err
	})
}

func pathName(p [][]byte) string {
	out := ""
	for i, k := range p {
		if i > 0 {
			out += "."
		}
		if k == nil {
			k = []byte("[]")
		}
		out += string(k)
	}
	return out
}

func (r *Record) field(p [][]byte, v val) error {
	switch string(p[0]) {
	case "burl_record":
		return setInt(&r.Version, v)
	case "task":
		return setString(&r.Task, v)
	case "title":
		return setString(&r.Title, v)
	case "main_branch":
		return setString(&r.MainBranch, v)
	case "base":
		return setString(&r.Base, v)
	case "tree":
		return setString(&r.Tree, v)
	case "gated_tree":
		return setString(&r.GatedTree, v)
	case "submitted_sha":
		return setString(&r.Submitted, v)
	case "worker":
		return setString(&r.Worker, v)
	case "approved_by":
		return setString(&r.ApprovedBy, v)
	case "landed_at":
		return setString(&r.LandedAt, v)
	case "commits":
		if len(p) == 2 {
			var c string
			err := setString(&c, v)
			r.Commits = append(r.Commits, c)
			return err
		}
	case "landing":
		return r.Landing.field(p[1:], v)
	case "gates":
		if len(p) == 3 {
			return r.Gates.field(p[1], p[2], v)
		}
	case "agent":
		if len(p) == 2 {
			if r.Agent == nil {
				r.Agent = &Agent{}
			}
			switch string(p[1]) {
			case "name":
				return setString(&r.Agent.Name, v)
			case "preset":
				return setString(&r.Agent.Preset, v)
			case "model":
				return setString(&r.Agent.Model, v)
			}
		}
	case "attempts":
		if len(p) == 2 {
			switch string(p[1]) {
			case "runs":
				return setInt(&r.Attempts.Runs, v)
			case "qa":
				return setInt(&r.Attempts.QA, v)
			}
		}
	case "cost":
		if len(p) == 2 {
			if r.Cost == nil {
				r.Cost = &Cost{}
			}
			switch string(p[1]) {
			case "input_tokens":
				return setInt64(&r.Cost.InputTokens, v)
			case "output_tokens":
				return setInt64(&r.Cost.OutputTokens, v)
			case "cost_usd":
				return setFloat(&r.Cost.CostUSD, v)
			}
		}
	}
	return nil
}

func (l *Via) field(p [][]byte, v val) error {
	switch {
	case len(p) == 1 && string(p[0]) == "kind":
		return setString(&l.Kind, v)
	case len(p) == 1 && string(p[0]) == "recovered":
		return setBool(&l.Recovered, v)
	case len(p) == 1 && string(p[0]) == "merge_style":
		return setString(&l.MergeStyle, v)
	case len(p) == 1 && string(p[0]) == "how":
		return setString(&l.How, v)
	case len(p) == 2 && string(p[0]) == "pr":
		if l.PR == nil {
			l.PR = &PR{}
		}
		switch string(p[1]) {
		case "number":
			return setInt(&l.PR.Number, v)
		case "url":
			return setString(&l.PR.URL, v)
		}
	}
	return nil
}

func (gs *Gates) field(name, key []byte, v val) error {
	var g *Gate
	switch string(name) {
	case "scope":
		g = &gs.Scope
	case "stubs":
		g = &gs.Stubs
	case "build":
		g = &gs.Build
	case "verify":
		g = &gs.Verify
	case "review":
		if gs.Review == nil {
			gs.Review = &Gate{}
		}
		g = gs.Review
	case "checks":
		if gs.Checks == nil {
			gs.Checks = &Gate{}
		}
		g = gs.Checks
	default:
		return nil
	}
	switch string(key) {
	case "result":
		return setString(&g.Result, v)
	case "inputs_sha256":
		return setString(&g.InputsSHA256, v)
	case "command":
		return setString(&g.Command, v)
	case "exit":
		if string(v.raw) == "null" {
			return nil
		}
		n := 0
		g.Exit = &n
		return setInt(g.Exit, v)
	case "seconds":
		return setFloat(&g.Seconds, v)
	case "on":
		return setString(&g.On, v)
	case "summary":
		return setString(&g.Summary, v)
	}
	return nil
}
