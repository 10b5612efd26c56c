// Package reason turns the full text of why a task was blocked, rejected
// or cancelled into the one line a board or a list shows (DESIGN §20): at
// most Max characters, cut only between words and marked with "…" when it
// is cut. The full text is kept elsewhere (the event, the QA report).
package reason

import (
	"strings"
	"unicode/utf8"
)

// Max is the longest summary, in characters.
const Max = 120

// Summary is the one-line summary of full: its first line that says
// something (not a bare "error:" title or a blank), blanks squeezed, cut
// to Max at a word boundary. Writers put what matters first (a scope
// failure's first line names the count, then every file), so the cut
// loses the least.
func Summary(full string) string {
	line := ""
	for _, l := range strings.Split(full, "\n") {
		l = strings.Join(strings.Fields(l), " ")
		l = strings.TrimPrefix(l, "Reason: ")
		if l == "" || strings.HasPrefix(l, "error: ") || strings.HasPrefix(l, "❌ ") {
			continue
		}
		line = l
		break
	}
	if line == "" {
		line = strings.Join(strings.Fields(full), " ")
	}
	return Cut(line, Max)
}

// Cut shortens s to at most max characters, cutting at the last blank
// (or after the last comma or semicolon) that leaves room for "…", so no
// word is split; a single word longer than max is the only thing cut
// inside.
func Cut(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	if max < 2 {
		return "…"
	}
	r := []rune(s)[:max-1]
	keep := len(r)
	for i := len(r) - 1; i > 0; i-- {
		if r[i] == ' ' {
			keep = i
			break
		}
	}
	out := strings.TrimRight(string(r[:keep]), " ,;:")
	return out + "…"
}

// OneLine is s with its blanks and line breaks squeezed to single spaces:
// a multi-line text kept whole on one line (frontmatter values).
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
