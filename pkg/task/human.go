package task

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/burl-dev/burl/pkg/reason"
)

// SetBlocked records why the task is blocked: blocked_reason keeps the
// whole text on one line, blocked_summary the line boards show.
func (t *Task) SetBlocked(full string) {
	t.SetStr(KeyBlockedReason, reason.OneLine(full))
	t.SetStr(KeyBlockedSummary, reason.Summary(full))
}

// ClearBlocked removes both.
func (t *Task) ClearBlocked() {
	t.SetNull(KeyBlockedReason)
	t.SetNull(KeyBlockedSummary)
}

// BlockedSummary is the one line that says why the task is blocked: the
// summary block wrote, or, for a task blocked before summaries existed,
// one made from blocked_reason.
func (t *Task) BlockedSummary() string {
	if s := t.Str(KeyBlockedSummary); s != "" {
		return s
	}
	return reason.Summary(t.Str(KeyBlockedReason))
}

// Held is why a human holds the task back from agents, "" when not held.
func (t *Task) Held() string { return t.Str(KeyHeldReason) }

// Cancelled reports whether the task ended without landing.
func (t *Task) Cancelled() bool { return t.Str(KeyResolution) == ResolutionCancelled }

// SetFloat sets a number (max_cost_usd).
func (t *Task) SetFloat(key string, f float64) {
	t.set(key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(f, 'f', -1, 64)})
}

// ReplaceSection replaces the text of "## <heading>" (the heading stays),
// creating the section at the end when it is missing.
func (t *Task) ReplaceSection(heading, text string) {
	closing := t.tail[:lineEnd(t.tail, 0)]
	lines := strings.SplitAfter(t.Body(), "\n")
	at, end := sectionBounds(lines, heading)
	if at < 0 {
		t.AppendToSection(heading, text)
		return
	}
	block := strings.ReplaceAll(strings.TrimRight(text, "\n")+"\n", "\n", t.nl)
	if end < len(lines) {
		block += t.nl
	}
	body := strings.Join(lines[:at+1], "") + block + strings.Join(lines[end:], "")
	t.tail = append(append([]byte{}, closing...), body...)
}
