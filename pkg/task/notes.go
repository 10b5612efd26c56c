package task

import "strings"

// Note is an entry of a task's QA Report that the next worker must read:
// its heading ("Rejected (attempt 2) — 2026-11-24T10:00:00Z by lead") and
// its text (the reason).
type Note struct{ Heading, Text string }

// Rejections are the QA rejections in the task's QA Report, oldest first
// (reject writes "### Rejected …" then "Reason: …").
func (t *Task) Rejections() []Note { return t.notes("Rejected", "Reason: ") }

// Unblocks are the times the task left BLOCKED, with why it had been
// blocked (unblock writes "### Unblocked …" then "Was blocked: …").
func (t *Task) Unblocks() []Note { return t.notes("Unblocked", "Was blocked: ") }

func (t *Task) notes(kind, field string) []Note {
	var out []Note
	cur := ""
	for _, l := range strings.Split(t.Section("QA Report"), "\n") {
		l = strings.TrimRight(l, "\r")
		switch {
		case strings.HasPrefix(l, "### "):
			cur = ""
			if strings.HasPrefix(l, "### "+kind) {
				cur = strings.TrimPrefix(l, "### ")
			}
		case cur != "" && strings.HasPrefix(l, field):
			out = append(out, Note{Heading: cur, Text: strings.TrimPrefix(l, field)})
			cur = ""
		}
	}
	return out
}

// FailedChecksMarker starts the list of failed checks a checks_failed
// rejection writes under its reason (DESIGN §21).
const FailedChecksMarker = "Failed checks:"

// LastFailedChecks is the failed checks (each one's name, description,
// URL and log) of the newest rejection, when the forge's checks were what
// sent the task back; "" otherwise. The next prompt carries it whole.
func (t *Task) LastFailedChecks() string {
	// The rejection and the reports written with it, up to the end.
	block := t.newestRejection()
	k := strings.Index(block, "\n"+FailedChecksMarker+"\n")
	if k < 0 {
		return ""
	}
	return strings.TrimSpace(block[k+1:])
}

// newestRejection is the QA report from its newest "### Rejected" entry
// to its end, "" when it has none.
func (t *Task) newestRejection() string {
	report := t.Section("QA Report")
	i := strings.LastIndex("\n"+report, "\n### Rejected")
	if i < 0 {
		return ""
	}
	return report[i:]
}
