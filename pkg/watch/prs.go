package watch

// Settling the pull requests of landing: pr on watch's rounds (DESIGN §17).

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// settleEvery bounds how often a watch asks the forge about its open pull
// requests (one list request each time): a human's merge need not be seen
// within the 2 s a claim loop polls at.
const settleEvery = 10 * time.Second

// settlePRs is DESIGN §17's settling on a watch round: git burl sync
// --settle records merged pull requests as DONE, blocks closed ones (or
// with pr_closed: ready sends them back to READY) and sends those with
// changes requested back to READY with what the reviewer said, which the
// next run's prompt carries.
func (s *supervisor) settlePRs(w *workflow.Workflow) bool {
	qa, _, err := w.InBucket(workflow.QA)
	if err != nil {
		return false
	}
	open := false
	for _, e := range qa {
		if e.Task != nil && e.Task.Str(task.KeyPRNumber) != "" {
			open = true
		}
	}
	every := settleEvery
	if s.opt.Interval > every {
		every = s.opt.Interval
	}
	if !open || time.Since(s.settled) < every {
		return false
	}
	s.settled = time.Now()
	out, errOut, _ := s.verb(s.self(), "sync", "--settle", "--json")
	for _, l := range strings.Split(strings.TrimSpace(string(errOut)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			s.logf("sync --settle: %s", strings.TrimPrefix(l, "burl: "))
		}
	}
	var res struct {
		Settle struct {
			PRs []struct {
				Task   string `json:"task"`
				Number int    `json:"number"`
				Result string `json:"result"`
				Merged string `json:"merged_sha"`
				Reason string `json:"reason"`
				To     string `json:"to"`
			} `json:"prs"`
		} `json:"settle"`
	}
	if json.Unmarshal(out, &res) != nil {
		return false
	}
	did := false
	for _, p := range res.Settle.PRs {
		s.mu.Lock()
		s.touch[p.Task] = true
		s.mu.Unlock()
		switch p.Result {
		case "merged":
			s.logf("%s: pull request #%d merged (%s): DONE", p.Task, p.Number, gitx.Short(p.Merged))
			did = true
		case "closed", "changes_requested", "checks_failed":
			if p.Result == "closed" && p.To == string(workflow.Blocked) {
				// Closed by a human: theirs to decide, not the agents'.
				s.logf("%s: pull request #%d closed without merge: BLOCKED (git burl show %s says why)", p.Task, p.Number, p.Task)
			} else {
				// Where it went, as it is: BLOCKED when that spent its last
				// QA attempt (DESIGN §25).
				s.markRejected(p.Task, fmt.Sprintf("pull request #%d: %s; %s", p.Number, p.Reason, s.endState(w, p.Task)))
			}
			did = true
		}
	}
	return did
}
