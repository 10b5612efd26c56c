// Package landsync is what git burl sync (and so watch) does about work
// that lands on the remote, above pkg/land: it settles the open pull
// requests of landing: pr (merged ones DONE through land's transition,
// closed or changes-requested ones back, their checks as a gate, the
// requests stacked on a merged parent retargeted to main, DESIGN §17,
// §21, §26) and follows the remote's main with this clone's (§20). Its
// entry points are Settle and FollowMain; PRChecks is what the last round
// saw of the checks, for status.
package landsync

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/forge"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/land"
	"github.com/burl-dev/burl/pkg/landforge"
	"github.com/burl-dev/burl/pkg/merged"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
	"github.com/burl-dev/burl/pkg/workspace"
)

// The frontmatter of a task whose pull request is open (DESIGN §17).
const (
	keyPRURL    = task.KeyPRURL
	keyPRNumber = task.KeyPRNumber
	keyPRHead   = task.KeyPRHead
	keyPRBase   = task.KeyPRBase
)

// SettleReport is a round: what was settled, and how many requests it
// cost (one list, plus one or two per pull request that changed).
type SettleReport struct {
	PRs      []land.Settled `json:"prs"`
	Requests int            `json:"requests"`
	// Waiting is set when the forge rate-limited this clone: nothing was
	// asked until then.
	Waiting string `json:"backoff_until,omitempty"`
}

// forgeState is this clone's memory of the forge between rounds, in the
// git dir: when each pull request last changed (a review is asked for only
// when it did), and until when the forge asked us to wait.
type forgeState struct {
	Seen map[string]string `json:"seen"`
	// NotLanded maps a pull request's number to "HEAD TARGET" when git
	// found that head's work not on that target: commits never change, so
	// the answer holds until the remote's main or the head moves, and a
	// quiet round runs no git per pull request.
	NotLanded map[string]string `json:"not_landed,omitempty"`
	Until     time.Time         `json:"backoff_until,omitempty"`
	// Checks is the state of each open request's checks as the last round
	// listed them, which status shows without asking the forge.
	Checks map[string]string `json:"checks,omitempty"`
	// CIPassed maps a request to the head whose checks passed (the merge
	// asked, where burl asks it): not read again.
	CIPassed map[string]string `json:"ci_passed,omitempty"`
	// CIPending maps a request to "HEAD STAMP" when its checks were
	// pending at that listing stamp (GitHub's): a round whose listing
	// shows the same stamp reads nothing more.
	CIPending map[string]string `json:"ci_pending,omitempty"`
	// CISince maps a request to "HEAD TIME": when this clone first saw
	// the head wait, for a request opened without pr_opened_at.
	CISince map[string]string `json:"ci_since,omitempty"`
}

// PRChecks is the state of each open pull request's checks (by number)
// as the last settle round listed them: what status shows without asking
// the forge.
func PRChecks(w *workflow.Workflow) map[string]string { return loadForgeState(w).Checks }

func forgeStatePath(w *workflow.Workflow) string {
	return filepath.Join(w.Repo.CommonDir, "burl", "forge-state.json")
}

func loadForgeState(w *workflow.Workflow) forgeState {
	st := forgeState{Seen: map[string]string{}}
	if b, err := os.ReadFile(forgeStatePath(w)); err == nil {
		_ = json.Unmarshal(b, &st)
		if st.Seen == nil {
			st.Seen = map[string]string{}
		}
	}
	for _, m := range []*map[string]string{&st.NotLanded, &st.CIPassed, &st.CIPending, &st.CISince} {
		if *m == nil {
			*m = map[string]string{}
		}
	}
	return st
}

func (st forgeState) save(w *workflow.Workflow) {
	b, _ := json.Marshal(st)
	_ = os.MkdirAll(filepath.Dir(forgeStatePath(w)), 0o755)
	_ = fsx.WriteFile(forgeStatePath(w), b)
}

// countingForge counts the requests a round makes, for the report and the
// benchmark that holds a round to one list request.
type countingForge struct {
	forge.Provider
	n int
}

func (c *countingForge) ListOpen() ([]forge.PR, error) { c.n++; return c.Provider.ListOpen() }
func (c *countingForge) Get(n int) (forge.PR, error)   { c.n++; return c.Provider.Get(n) }
func (c *countingForge) Feedback(p forge.PR) (forge.Feedback, error) {
	c.n++
	return c.Provider.Feedback(p)
}

// Settle is one round of `git burl sync`'s settling (and so watch's),
// over the QA tasks whose pull requests are open:
// one request lists the open pull requests; a task whose work is on the
// remote's main (by git alone: ancestry, git cherry, the squash's patch
// id) or whose request the forge says was merged is DONE; one closed
// without merge, or with a review asking for changes on its head, goes
// back to READY with what the reviewer said. Runs without the workflow
// lock held: each settlement is its own transition.
func Settle(w *workflow.Workflow) (*SettleReport, error) {
	if err := landforge.TrustedChecks(w); err != nil {
		return nil, err
	}
	rep := &SettleReport{PRs: []land.Settled{}}
	qa, _, err := w.InBucket(workflow.QA)
	if err != nil {
		return nil, err
	}
	var open []workflow.Entry
	for _, e := range qa {
		if land.PRNumber(e.Task) > 0 {
			open = append(open, e)
		}
	}
	if len(open) == 0 {
		return rep, nil
	}
	p, err := landforge.ForgeFor(w)
	if err != nil {
		return nil, err
	}
	st := loadForgeState(w)
	if time.Now().Before(st.Until) {
		rep.Waiting = st.Until.UTC().Format(time.RFC3339)
		fmt.Fprintf(w.Stderr, "burl: %s asked to wait (rate limit) until %s: the %d open pull request(s) are settled after that\n", p.Name(), rep.Waiting, len(open))
		return rep, nil
	}
	prov := &countingForge{Provider: p}
	defer func() { rep.Requests = prov.n }()
	g, remote, main := w.Repo.Git, w.Config.Remote, w.Config.MainBranch
	if err := g.FetchTracking(remote, main); err != nil {
		return nil, err
	}
	target, err := g.Run("rev-parse", gitx.Tracking(remote, main))
	if err != nil {
		return nil, err
	}
	listed, err := prov.ListOpen()
	if err != nil {
		return rep, backOff(w, st, p, err)
	}
	byNumber := map[int]forge.PR{}
	st.Checks = map[string]string{}
	for _, pr := range listed {
		byNumber[pr.Number] = pr
		if pr.Checks != "" {
			st.Checks[strconv.Itoa(pr.Number)] = pr.Checks
		}
	}
	entries := map[string]workflow.Entry{}
	for _, e := range open {
		entries[e.ID] = e
	}
	landed := map[string]string{} // merged this round: the commit on main
	for _, e := range open {
		s, err := judge(w, prov, e.Task, byNumber, &st, target)
		if err != nil {
			if _, ok := err.(*forge.RateLimited); ok {
				st.save(w)
				return rep, backOff(w, st, p, err)
			}
			fmt.Fprintf(w.Stderr, "burl: %s: cannot settle pull request #%d: %v\n", e.ID, land.PRNumber(e.Task), err)
			continue
		}
		switch s.Result {
		case "open":
		case "held":
			fmt.Fprintf(w.Stderr, "burl: %s: %s\n", e.ID, s.Reason)
		default:
			s.Result, s.To = applySettlement(w, e.ID, s)
			if s.Result == "merged" {
				landed[e.ID] = s.MergedSHA
			}
		}
		rep.PRs = append(rep.PRs, s)
	}
	retargetStacked(w, rep, open, landed, target)
	if w.Config.CI.Gates() {
		gateChecks(w, p, rep, entries, byNumber, &st, &prov.n)
		for i, s := range rep.PRs {
			if s.Result == "checks_failed" {
				rep.PRs[i].Result, rep.PRs[i].To = applySettlement(w, s.Task, s)
			}
		}
	}
	// What git found for pull requests no longer in QA here is not needed.
	inQA := map[string]bool{}
	for _, e := range open {
		inQA[strconv.Itoa(land.PRNumber(e.Task))] = true
	}
	for _, m := range []map[string]string{st.NotLanded, st.CIPassed, st.CIPending, st.CISince} {
		for k := range m {
			if !inQA[k] {
				delete(m, k)
			}
		}
	}
	st.save(w)
	return rep, nil
}

// backOff remembers a rate limit, says so, and is not an error: the next
// round after the wait tries again.
func backOff(w *workflow.Workflow, st forgeState, p forge.Provider, err error) error {
	rl, ok := err.(*forge.RateLimited)
	if !ok {
		return landforge.ForgeErr(p, "list the open pull requests", err)
	}
	wait := rl.Retry
	if wait <= 0 {
		wait = time.Minute
	}
	st.Until = time.Now().Add(wait)
	st.save(w)
	fmt.Fprintf(w.Stderr, "burl: %s rate-limits this account: backing off for %s; open pull requests are settled after that\n", p.Name(), wait.Round(time.Second))
	return nil
}

// judge decides one task's pull request without changing anything.
func judge(w *workflow.Workflow, prov forge.Provider, t *task.Task, open map[int]forge.PR, st *forgeState, target string) (land.Settled, error) {
	n := land.PRNumber(t)
	s := land.Settled{Task: t.ID(), Number: n, URL: t.Str(keyPRURL), Result: "open"}
	head := t.Str(keyPRHead)
	key := strconv.Itoa(n)
	if st.NotLanded[key] != head+" "+target {
		sha, how, sure := landedByGit(w, t, n, head, target)
		if sha != "" {
			delete(st.NotLanded, key)
			s.Result, s.MergedSHA, s.How = "merged", sha, how
			if st.CIPassed[key] == head {
				s.Checks = "success" // the landing record says so
			}
			if _, stillOpen := open[n]; !stillOpen {
				return mergedAsApproved(prov, s, head, w.Config.MainBranch)
			}
			return s, nil
		}
		if sure {
			st.NotLanded[key] = head + " " + target
		} else {
			delete(st.NotLanded, key)
		}
	}
	if pr, ok := open[n]; ok {
		s.Checks = pr.Checks
		if pr.Head != "" && head != "" && pr.Head != head {
			if branchTip(w, t.Branch()) == head {
				// The forge has not caught up with approve's push yet (it
				// re-reads a pull request's head asynchronously): git, not
				// the forge's listing, says what the branch holds.
				return s, nil
			}
			// Pushed to outside approve: what the gates passed is not what
			// the request holds any more.
			s.Result, s.Reason = "changes_requested", fmt.Sprintf("pull request #%d was pushed to outside burl (its head is %s, approve passed %s): approve it again", n, gitx.Short(pr.Head), gitx.Short(head))
			return s, nil
		}
		if !pr.ChangesRequested && pr.Updated != "" && st.Seen[key] == pr.Updated {
			return s, nil
		}
		pr.Head = head
		fb, err := prov.Feedback(pr)
		if err != nil {
			return s, err
		}
		if settledStamp(pr.Updated) {
			st.Seen[key] = pr.Updated
		}
		if fb.ChangesRequested {
			s.Result, s.Reason = "changes_requested", fb.Text
		}
		return s, nil
	}
	pr, err := prov.Get(n)
	if err != nil {
		return s, err
	}
	delete(st.Seen, key)
	delete(st.NotLanded, key)
	if pr.State == "merged" && pr.Head != "" && head != "" && pr.Head != head {
		return movedHead(s, pr.Head, head, w.Config.MainBranch), nil
	}
	switch pr.State {
	case "merged":
		s.Result, s.MergedSHA, s.How = "merged", pr.MergedSHA, "forge"
		// The forge's word, checked against the remote's main where git
		// can: a merge into another branch is not a landing on main.
		if _, err := w.Repo.Git.Run("fetch", "-q", w.Config.Remote, "+refs/heads/"+w.Config.MainBranch+":"+gitx.Tracking(w.Config.Remote, w.Config.MainBranch)); err == nil {
			if tgt, err := w.Repo.Git.Run("rev-parse", gitx.Tracking(w.Config.Remote, w.Config.MainBranch)); err == nil {
				if sha, how, _ := landedByGit(w, t, n, head, tgt); sha != "" {
					s.MergedSHA, s.How = sha, how
				} else if in, _ := w.Repo.Git.Test("merge-base", "--is-ancestor", pr.MergedSHA, tgt); !in {
					s.Result, s.Reason = "open", fmt.Sprintf("%s says #%d is merged, but %s is not on %s/%s", prov.Name(), n, gitx.Short(pr.MergedSHA), w.Config.Remote, w.Config.MainBranch)
				}
			}
		}
	case "closed":
		fb, err := prov.Feedback(pr)
		if err != nil {
			return s, err
		}
		reason := fmt.Sprintf("pull request #%d closed", n)
		if fb.Text != "" {
			reason += ": " + fb.Text
		}
		s.Result, s.Reason = "closed", reason
	}
	return s, nil
}

// branchTip is the remote's tip of branch ("" when it has none, or the
// remote cannot be asked).
func branchTip(w *workflow.Workflow, branch string) string {
	out, err := w.Repo.Git.Run("ls-remote", w.Config.Remote, "refs/heads/"+branch)
	if err != nil {
		return ""
	}
	sha, _, _ := strings.Cut(out, "\t")
	return sha
}

// mergedAsApproved checks, for a request the forge no longer lists as
// open, that what it merged is the head approve's gates passed: commits
// pushed to the request after approve (by an agent holding forge
// credentials, say) would otherwise reach main ungated and be recorded as
// DONE.
func mergedAsApproved(prov forge.Provider, s land.Settled, head, main string) (land.Settled, error) {
	pr, err := prov.Get(s.Number)
	if err != nil {
		return s, err
	}
	if pr.Head != "" && pr.Head != head {
		return movedHead(s, pr.Head, head, main), nil
	}
	return s, nil
}

// movedHead is a request merged at another head than approve passed:
// burl does not call it DONE. The task stays in QA, held, until a human
// has looked at what else landed and accepts it (approve --accept-landed),
// as for any work that reached main outside burl (DESIGN §15).
func movedHead(s land.Settled, merged, passed, main string) land.Settled {
	s.Result, s.MergedSHA, s.How = "held", "", ""
	s.Reason = fmt.Sprintf("pull request #%d was merged at %s, but approve's gates passed %s: the commits after it reached %s without burl's gates: review them there, then git burl approve --accept-landed %s records it DONE", s.Number, gitx.Short(merged), gitx.Short(passed), main, s.Task)
	return s
}

// settledStamp reports whether a pull request's change stamp may be
// remembered as seen: forges stamp changes in whole seconds, so one made in
// the last seconds may be followed by another with the same stamp (a review
// posted just after this round read it), and is asked about again next
// round. A stamp that does not start with a time is always remembered.
func settledStamp(stamp string) bool {
	at, err := time.Parse(time.RFC3339, strings.Fields(stamp + " x")[0])
	return err != nil || time.Since(at) > 5*time.Second
}

// landedByGit is forge.Landed for a task's pull request head: the work is
// on the remote's main however it got there. The head is fetched when this
// clone lacks it (approved on another machine). sure says git answered:
// the head is here and nothing failed, so "not landed" holds for as long
// as head and target are these two commits.
func landedByGit(w *workflow.Workflow, t *task.Task, n int, head, target string) (sha, how string, sure bool) {
	g := w.Repo.Git
	if head == "" || !gitx.ValidObjectID(head) {
		return "", "", false
	}
	if !g.Has(head + "^{commit}") {
		_, _ = g.Run("fetch", "-q", w.Config.Remote, "+refs/heads/"+t.Branch()+":"+gitx.Tracking(w.Config.Remote, t.Branch()))
		if !g.Has(head + "^{commit}") {
			// Gitea and GitHub keep every request's head here, after its
			// branch is deleted too.
			_, _ = g.Run("fetch", "-q", w.Config.Remote, fmt.Sprintf("refs/pull/%d/head", n))
		}
		if !g.Has(head + "^{commit}") {
			return "", "", false
		}
	}
	base, err := g.Run("merge-base", head, target)
	if err != nil {
		return "", "", false
	}
	sha, how, err = merged.Landed(g, base, head, target)
	if err != nil {
		return "", "", false
	}
	return sha, how, true
}

// applySettlement records a settled pull request as its transition. A task
// another clone settled first (it is not in QA any more) is skipped: each
// DONE is recorded once.
func applySettlement(w *workflow.Workflow, id string, s land.Settled) (result, to string) {
	var tr workflow.Transition
	switch s.Result {
	case "merged":
		tr = workflow.Transition{Verb: "pr_merged", To: workflow.Done, Apply: func(tx *workflow.Tx) error {
			l, err := land.PRLanding(w, tx.Task, s)
			if err != nil {
				return err
			}
			tx.Details["how"] = s.How
			tx.Details["number"] = s.Number
			tx.Details["url"] = s.URL
			return land.Done(w, tx, s.MergedSHA, fmt.Sprintf("### Merged — pull request #%d merged into %s as %s (%s) — %s, recorded by %s\n",
				s.Number, w.Config.MainBranch, gitx.Short(s.MergedSHA), howSaid(s.How), tx.Now.Format("2006-01-02T15:04:05Z"), w.Actor), l)
		}}
	case "closed", "changes_requested":
		verb, reason := "pr_closed", s.Reason
		if s.Result == "changes_requested" {
			verb, reason = "pr_changes_requested", fmt.Sprintf("pull request #%d: changes requested: %s", s.Number, s.Reason)
		}
		var lines []string
		if strings.Contains(reason, "\n") {
			lines = append(lines, "", "What the reviewer said:", "", reason)
		}
		tr = workflow.Transition{Verb: verb, To: workflow.Ready, Apply: func(tx *workflow.Tx) error {
			if s.Result == "closed" && w.Config.PRClosed == "blocked" {
				// A human closed it: that is a no, not a round for the
				// agent, which would only open another one.
				blockClosed(w, tx, reason, lines)
			} else {
				qa.Reject(w, tx, reason, lines)
			}
			for _, k := range []string{keyPRURL, keyPRNumber, keyPRHead} {
				tx.Task.SetNull(k)
			}
			tx.Details["number"] = s.Number
			tx.Details["url"] = s.URL
			return nil
		}}
	case "checks_failed":
		tr = checksFailed(w, s)
	}
	tr.ID, tr.From, tr.Message = id, []workflow.Bucket{workflow.QA}, tr.Verb+" "+id
	res, err := w.Run(tr)
	if err != nil {
		if e, gerr := w.Get(id); gerr == nil && e.Bucket != workflow.QA {
			return "skipped", ""
		}
		fmt.Fprintf(w.Stderr, "burl: %s: %v\n", id, err)
		return "skipped", ""
	}
	if s.Result == "merged" {
		cleanupMerged(w, res.Entry.Task)
	}
	return s.Result, string(res.Entry.Bucket)
}

// blockClosed is pr_closed: ready's opposite, the default: the task goes
// to BLOCKED with the closing comment as its reason, for a human to
// decide (git burl unblock sends it back to READY). Its branch and
// worktree stay.
func blockClosed(w *workflow.Workflow, tx *workflow.Tx, reason string, extra []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "### Blocked — pull request closed without merge — %s, recorded by %s\n\nReason: %s\n", tx.Now.Format("2006-01-02T15:04:05Z"), w.Actor, qa.OneLine(reason))
	for _, l := range extra {
		fmt.Fprintf(&b, "%s\n", l)
	}
	tx.Task.AppendToSection("QA Report", b.String())
	// Its one-line summary too, which boards and lists show (DESIGN §20).
	tx.Task.SetBlocked(reason)
	tx.To = workflow.Blocked
	tx.Details["reason"] = reason
}

// howSaid is forge.Landed's how, for the QA report.
func howSaid(how string) string {
	switch how {
	case merged.ByAncestry:
		return "its commits themselves are there"
	case merged.ByCherry:
		return "rebased: every commit's patch is there"
	case merged.BySquash:
		return "squash merge: the combined diff is there"
	}
	return "the forge says merged"
}

// cleanupMerged removes a merged task's worktree and branches. Rebase and
// squash merges leave the branch's own commits off main by hash, so unlike
// approve's cleanup the local branch goes whatever its ancestry: its work
// was recognised on main.
func cleanupMerged(w *workflow.Workflow, t *task.Task) {
	g := w.Repo.Git
	if !land.RemoveWorktree(w, t) {
		return
	}
	b := t.Branch()
	if ok, _ := workspace.BranchExists(g, b); ok {
		if _, err := g.Run("branch", "-D", b); err != nil {
			fmt.Fprintf(w.Stderr, "burl: warning: could not delete branch %s: %v\n", b, err)
		}
	}
	if len(stackedOnBranch(w, b)) > 0 {
		// Requests stacked on it still target it: deleted once they
		// are retargeted (retargetStacked), not before.
		return
	}
	land.DeleteRemoteBranch(w, b, t.Str(keyPRHead))
}
