package cli

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Escape renders the control characters of one field (a title, an owner,
// a reason) visibly: task files come from a shared branch, and a title
// holding "\n" or an escape sequence must not forge lines or drive the
// reader's terminal. Printable text, non-ASCII letters included, is kept.
func Escape(s string) string {
	if !hasControl(s, false) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		writeRune(&b, r, false)
	}
	return b.String()
}

// hasControl reports a control character; keepLines spares \n and \t.
func hasControl(s string, keepLines bool) bool {
	for _, r := range s {
		if isControl(r) && !(keepLines && (r == '\n' || r == '\t')) {
			return true
		}
	}
	return false
}

// isControl: C0, DEL and C1 controls, and the Unicode characters that
// break a line or reorder what a terminal shows (line and paragraph
// separators, bidi embeddings, overrides and isolates).
func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) ||
		r == 0x2028 || r == 0x2029 || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

func writeRune(b *strings.Builder, r rune, keepLines bool) {
	switch {
	case !isControl(r), keepLines && (r == '\n' || r == '\t'):
		b.WriteRune(r)
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\t':
		b.WriteString(`\t`)
	case r == '\r':
		b.WriteString(`\r`)
	case r < 0x80:
		fmt.Fprintf(b, `\x%02x`, r)
	default:
		fmt.Fprintf(b, `\u%04x`, r)
	}
}

// escaper is the last line of defence for human output: whatever a verb
// prints, no escape sequence or other control character but line breaks
// and tabs reaches the terminal (a field printed without Escape can at
// worst add a line, never rewrite the screen).
type escaper struct{ w io.Writer }

func (e escaper) Write(p []byte) (int, error) {
	s := string(p)
	if !hasControl(s, true) || !utf8.ValidString(s) && !hasControlBytes(p) {
		return e.w.Write(p)
	}
	var b strings.Builder
	for _, r := range s {
		writeRune(&b, r, true)
	}
	if _, err := io.WriteString(e.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

func hasControlBytes(p []byte) bool {
	for _, c := range p {
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return true
		}
	}
	return false
}
