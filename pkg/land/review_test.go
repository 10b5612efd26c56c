package land

import (
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/task"
)

// A task lands only on its reviewer's approve of the head it submitted:
// an approve of an earlier head, another verdict, or none holds it.
func TestReviewGateWait(t *testing.T) {
	parse := func(extra string) *task.Task {
		tk, err := task.Parse([]byte("---\nid: TASK-001\ntitle: x\nsubmitted_sha: bbbbbbbbbbbb\n" + extra + "---\n"))
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	gate := ReviewGate{settings: &agents.Review{Agent: "critic", Rounds: 2}}
	for _, c := range []struct {
		extra, want string
	}{
		{"review_verdict: approve\nreview_head: bbbbbbbbbbbb\n", ""},
		{"", "waits for the review by critic (agents.yaml review:) of its head bbbbbbbbbb"},
		{"review_verdict: approve\nreview_head: aaaaaaaaaaaa\n", "waits for the review by critic"},
		{"review_verdict: request_changes\nreview_head: bbbbbbbbbbbb\n", "waits for the review by critic"},
		{"review_verdict: overridden\nreview_head: bbbbbbbbbbbb\n", "waits for the review by critic"},
		{"review_verdict: failed\nreview_head: bbbbbbbbbbbb\n", "the last review failed and is run again"},
	} {
		got := gate.Wait(parse(c.extra))
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%q: Wait = %q, want %q", c.extra, got, c.want)
		}
	}
	if got := (ReviewGate{}).Wait(parse("")); got != "" {
		t.Errorf("without review: Wait = %q", got)
	}
}
