package land

import "github.com/burl-dev/burl/pkg/landforge"

// Settled is what one settle round did to one task with a pull request:
// sync's and watch's "prs" (DESIGN §17).
// pkg/landsync makes it; it is here because the landing record of a
// merged one is written from it (PRLanding).
type Settled struct {
	Task   string `json:"task"`
	Number int    `json:"number"`
	URL    string `json:"url"`
	// Result: merged (now DONE), closed (to BLOCKED, or to READY with
	// pr_closed: ready), changes_requested (back to READY), open (still
	// waiting), held (merged at another head than approve passed: left in
	// QA for a human), skipped (another clone settled it first, or its
	// lock is held), retargeted (stacked on a parent that merged: restacked
	// onto main, approved again, its request now onto main) or
	// not_retargeted (that failed: Reason says why; its request still
	// targets the parent's branch, which is kept).
	Result string `json:"result"`
	// MergedSHA is the commit on the remote's main holding the work, and
	// How how it was recognised: ancestry, cherry, squash or forge.
	MergedSHA string `json:"merged_sha,omitempty"`
	How       string `json:"how,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Checks    string `json:"checks,omitempty"`
	// To is the bucket the task went to when this round moved it: DONE,
	// READY, or BLOCKED (a closed pull request, unless pr_closed: ready).
	To string `json:"to,omitempty"`
	// Failed is each failed check, with the end of its log, when Result
	// is checks_failed (DESIGN §21).
	Failed []landforge.FailedCheck `json:"failed_checks,omitempty"`
}
