package task

import (
	"bytes"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// fastRoot builds, without yaml.v3, the node tree yaml.v3 builds for the
// frontmatter burl itself writes: one `key: value` per line at column 1,
// blank and column-1 comment lines, null, plain or simply quoted strings,
// plain integers, UTC timestamps, flow lists of such strings and block
// lists of such scalars. yaml.v3 spends ~40 µs and ~30 KB of garbage on a
// task file; this takes a few µs, which is what a cold status over
// thousands of tasks lives on.
//
// It returns nil for anything else, and the caller asks yaml.v3. The tree
// it returns is identical in every field burl reads (kind, style, tag,
// value, position, line comment, content): FuzzFastRoot checks that
// against yaml.v3 on every input the fast reader accepts. Head and foot
// comments are not attached, because burl never reads them.
func fastRoot(lines [][]byte) *yaml.Node {
	root := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i < len(lines); i++ {
		l, ok := bareLine(lines[i])
		if !ok {
			return nil
		}
		if len(l) == 0 || l[0] == '#' {
			continue
		}
		colon := keyEnd(l)
		if colon < 0 {
			return nil
		}
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: string(l[:colon]), Line: i + 1, Column: 1}
		if root.Line == 0 {
			root.Line, root.Column = i+1, 1
		}
		var val *yaml.Node
		rest := l[colon+1:]
		if len(rest) == 0 {
			// Only a block list may follow an empty value here.
			val, i = blockList(lines, i+1)
			if val == nil {
				return nil
			}
			i--
		} else {
			col := colon + 2
			if rest[0] != ' ' {
				return nil
			}
			for len(rest) > 0 && rest[0] == ' ' {
				rest, col = rest[1:], col+1
			}
			if len(rest) == 0 {
				return nil
			}
			if val = scalarOrFlow(rest, i+1, col); val == nil {
				return nil
			}
		}
		root.Content = append(root.Content, key, val)
	}
	if len(root.Content) == 0 {
		return nil
	}
	return root
}

// bareLine is a line without its LF, refused (ok false) when it holds
// anything the fast reader does not take: CR, tabs, or characters YAML
// does not allow or reads as line breaks.
func bareLine(line []byte) ([]byte, bool) {
	l := bytes.TrimSuffix(line, []byte("\n"))
	for i := 0; i < len(l); {
		c := l[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRune(l[i:])
		if !printable(r) || (r == utf8.RuneError && n == 1) {
			return nil, false
		}
		i += n
	}
	return l, true
}

// printable is YAML's printable set above ASCII, less the characters
// yaml.v3 reads as line breaks (NEL, LS, PS) and the byte-order mark.
func printable(r rune) bool {
	switch {
	case r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xFEFF:
		return false
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// keyEnd is the index of the colon ending a `key:` at column 1, or -1: a
// key is [A-Za-z_][A-Za-z0-9_]*, no longer than YAML allows an implicit
// key (1024 characters; we stop at 128), and not a word YAML could
// resolve to something else than a string.
func keyEnd(l []byte) int {
	i := 0
	for i < len(l) && (isLetter(l[i]) || l[i] == '_' || i > 0 && isDigit(l[i])) {
		i++
	}
	if i == 0 || i > 128 || i == len(l) || l[i] != ':' || i+1 < len(l) && l[i+1] != ' ' || special(string(l[:i])) {
		return -1
	}
	return i
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// special is a plain word that YAML 1.1 or 1.2 may read as a boolean,
// null or float: left to yaml.v3.
func special(s string) bool {
	switch strings.ToLower(s) {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n", ".inf", ".nan":
		return true
	}
	return false
}

// blockList reads the `- item` lines that follow an empty value, starting
// at lines[i]; it returns the list and the index just past it, or nil.
func blockList(lines [][]byte, i int) (*yaml.Node, int) {
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	indent := -1
	for ; i < len(lines); i++ {
		l, ok := bareLine(lines[i])
		if !ok {
			return nil, i
		}
		n := 0
		for n < len(l) && l[n] == ' ' {
			n++
		}
		if n+1 >= len(l) || l[n] != '-' || l[n+1] != ' ' {
			break
		}
		if indent < 0 {
			indent = n
			seq.Line, seq.Column = i+1, n+1
		} else if n != indent {
			return nil, i
		}
		col := n + 3
		item := l[n+2:]
		for len(item) > 0 && item[0] == ' ' {
			item, col = item[1:], col+1
		}
		v := scalar(item, i+1, col, false)
		if v == nil {
			return nil, i
		}
		seq.Content = append(seq.Content, v)
	}
	if len(seq.Content) == 0 {
		return nil, i
	}
	return seq, i
}

// scalarOrFlow is a value on its key's line: a scalar or a flow list.
func scalarOrFlow(v []byte, line, col int) *yaml.Node {
	if v[0] != '[' {
		return scalar(v, line, col, false)
	}
	if v[len(v)-1] != ']' {
		return nil
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle, Line: line, Column: col}
	inner, c := v[1:len(v)-1], col+1
	if len(bytes.TrimLeft(inner, " ")) == 0 {
		if len(inner) > 0 {
			return nil
		}
		return seq
	}
	for {
		for len(inner) > 0 && inner[0] == ' ' {
			inner, c = inner[1:], c+1
		}
		end := bytes.IndexByte(inner, ',')
		last := end < 0
		if last {
			end = len(inner)
		}
		item := inner[:end]
		if len(item) == 0 || item[len(item)-1] == ' ' {
			return nil
		}
		n := scalar(item, line, c, true)
		if n == nil {
			return nil
		}
		seq.Content = append(seq.Content, n)
		if last {
			return seq
		}
		inner, c = inner[end+1:], c+end+1
	}
}

// scalar is one scalar value; inFlow when it is a flow list's item, where
// more characters end a plain scalar.
func scalar(v []byte, line, col int, inFlow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Line: line, Column: col}
	if len(v) == 0 || v[len(v)-1] == ' ' {
		return nil
	}
	s := string(v)
	switch c := v[0]; {
	case c == '"' || c == '\'':
		if len(v) < 2 || v[len(v)-1] != c {
			return nil
		}
		inner := s[1 : len(s)-1]
		if strings.IndexByte(inner, c) >= 0 || c == '"' && strings.IndexByte(inner, '\\') >= 0 {
			return nil
		}
		n.Tag, n.Value, n.Style = "!!str", inner, yaml.DoubleQuotedStyle
		if c == '\'' {
			n.Style = yaml.SingleQuotedStyle
		}
		return n
	case isDigit(c):
		switch {
		case plainInt(s):
			n.Tag = "!!int"
		case utcTimestamp(s):
			n.Tag = "!!timestamp"
		default:
			return nil
		}
		n.Value = s
		return n
	case s == "null":
		n.Tag, n.Value = "!!null", s
		return n
	case isLetter(c) || c == '_' || c == '/' || c == '.' && len(s) > 1 && (isLetter(s[1]) || s[1] == '_' || s[1] == '/'):
		// # may start a comment, : a mapping; in a flow list , [ ] { }
		// are syntax too.
		stop := "#:\t"
		if inFlow {
			stop = "#:\t,[]{}\"'"
		}
		if strings.ContainsAny(s, stop) || special(s) {
			return nil
		}
		n.Tag, n.Value = "!!str", s
		return n
	}
	return nil
}

// utcTimestamp is the only timestamp form burl writes,
// 2006-01-02T15:04:05Z with optional fractional seconds, which yaml.v3
// tags !!timestamp.
func utcTimestamp(s string) bool {
	const layout = "dddd-dd-ddTdd:dd:dd"
	if len(s) < len(layout)+1 || s[len(s)-1] != 'Z' {
		return false
	}
	for i := 0; i < len(layout); i++ {
		if layout[i] == 'd' && !isDigit(s[i]) || layout[i] != 'd' && s[i] != layout[i] {
			return false
		}
	}
	frac := s[len(layout) : len(s)-1]
	if frac != "" && (len(frac) < 2 || frac[0] != '.' || strings.Trim(frac[1:], "0123456789") != "") {
		return false
	}
	// yaml.v3 tags as a timestamp only what time.Parse takes (no month
	// 13, no second 60), with this layout.
	_, err := time.Parse("2006-1-2T15:4:5.999999999Z07:00", s)
	return err == nil
}
