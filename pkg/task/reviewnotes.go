package task

import "strings"

// ReviewMarker starts the reviewer's summary and comments that a
// request_changes rejection writes under its reason (DESIGN §21).
const ReviewMarker = "Review summary:"

// LastReviewRequest is the summary and comments of the newest rejection,
// when the reviewer's request for changes was what sent the task back; ""
// otherwise. The next prompt carries it whole.
func (t *Task) LastReviewRequest() string {
	block := t.newestRejection()
	k := strings.Index(block, "\n"+ReviewMarker)
	if k < 0 {
		return ""
	}
	block = block[k+1:]
	if end := strings.Index(block, "\n### "); end >= 0 {
		block = block[:end]
	}
	return strings.TrimSpace(block)
}
