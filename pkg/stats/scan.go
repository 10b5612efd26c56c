package stats

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// The event log is history-sized (six events and more per task), and
// encoding/json spent most of stats' time building what it then dropped.
// decode walks one line's object and its details (and their usage) with a
// scanner that skips every other value whole, strings and nesting minded:
// the same answer, at the speed of reading the bytes.

// names interns the few distinct strings of a log (actions, actors, IDs,
// agents, buckets): one allocation each, not one per line.
type names map[string]string

func (n names) of(v []byte) string {
	if len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 {
		// A lookup by the bytes as a string allocates nothing.
		if in, ok := n[string(v[1:len(v)-1])]; ok {
			return in
		}
	}
	s, ok := str(v)
	if !ok {
		return ""
	}
	if in, ok := n[s]; ok {
		return in
	}
	n[s] = s
	return s
}

// decode reads one logged event; false for a line that is not one.
func decode(line []byte, e *event, n names) bool {
	ok := members(line, func(k, v []byte) {
		switch string(k) {
		case "ts":
			if s, ok := str(v); ok {
				e.TS, _ = time.Parse(time.RFC3339, s)
			}
		case "task":
			e.Task = n.of(v)
		case "action":
			e.Action = n.of(v)
		case "actor":
			e.Actor = n.of(v)
		case "details":
			d := &e.Details
			members(v, func(k, v []byte) {
				switch string(k) {
				case "to":
					d.To = n.of(v)
				case "resolution":
					d.Resolution = n.of(v)
				case "agent":
					d.Agent = n.of(v)
				case "verdict":
					d.Verdict = n.of(v)
				case "result":
					d.Result = n.of(v)
				case "usage":
					u := &usageOf{}
					if members(v, func(k, v []byte) {
						switch string(k) {
						case "cost_usd":
							u.CostUSD, _ = strconv.ParseFloat(string(v), 64)
						case "model":
							u.Model = n.of(v)
						}
					}) {
						d.Usage = u
					}
				}
			})
		}
	})
	return ok && e.Action != "" && !e.TS.IsZero()
}

// str is a JSON string's value ("" and false for anything else).
func str(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	for _, c := range v[1 : len(v)-1] {
		if c == '\\' {
			var s string
			err := json.Unmarshal(v, &s)
			return s, err == nil
		}
	}
	return string(v[1 : len(v)-1]), true
}

// members calls fn with each key (unquoted, without escapes: burl's keys
// have none) and raw value of the object b; false when b is no object.
func members(b []byte, fn func(k, v []byte)) bool {
	i := space(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = space(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) {
		if b[i] != '"' {
			return false
		}
		end := skip(b, i)
		if end < 0 {
			return false
		}
		key := b[i+1 : end-1]
		i = space(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = space(b, i+1)
		end = skip(b, i)
		if end < 0 {
			return false
		}
		fn(key, b[i:end])
		i = space(b, end)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case ',':
			i = space(b, i+1)
		case '}':
			return true
		default:
			return false
		}
	}
	return false
}

func space(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skip returns the index just past the value starting at b[i], -1 when
// it is cut short.
func skip(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end := skip(b, j)
				if end < 0 {
					return -1
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' {
		j++
	}
	return j
}
