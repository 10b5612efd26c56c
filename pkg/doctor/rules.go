package doctor

import (
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// rule is one frontmatter key that must be set (or must be null) for a
// task to be in a bucket.
type rule struct {
	key string
	set bool
}

// rules are what every burl verb leaves in each bucket: claim sets the
// owner, branch, worktree, base and start; submit the submission; approve
// the completion; block the reason. reject, release and unblock clear the
// owner and the submission on the way back to READY, and unblock clears the
// reason. So each bucket's rules rule out every other bucket, and a task
// file fits exactly one bucket unless someone edited it by hand.
var rules = map[workflow.Bucket][]rule{
	workflow.Ready: {
		{task.KeyAssignedTo, false}, {task.KeySubmittedSHA, false}, {task.KeyCompletedAt, false}, {task.KeyBlockedReason, false},
		{task.KeyProposedBy, false},
	},
	workflow.Doing: {
		{task.KeyAssignedTo, true}, {task.KeyBranch, true}, {task.KeyWorktree, true}, {task.KeyBaseSHA, true}, {task.KeyStartedAt, true},
		{task.KeySubmittedSHA, false}, {task.KeyCompletedAt, false}, {task.KeyBlockedReason, false},
	},
	workflow.QA: {
		{task.KeyBranch, true}, {task.KeyWorktree, true}, {task.KeyBaseSHA, true}, {task.KeyStartedAt, true},
		{task.KeySubmittedAt, true}, {task.KeySubmittedSHA, true}, {task.KeyCompletedAt, false}, {task.KeyBlockedReason, false},
	},
	workflow.Done: {
		{task.KeyCompletedAt, true}, {task.KeyBlockedReason, false},
	},
	workflow.Blocked: {
		{task.KeyBlockedReason, true},
	},
	// What an agent proposed: no owner or submission yet, and who proposed
	// it, which accept clears on the way to READY.
	workflow.Proposed: {
		{task.KeyProposedBy, true}, {task.KeyAssignedTo, false}, {task.KeySubmittedSHA, false}, {task.KeyCompletedAt, false}, {task.KeyBlockedReason, false},
	},
}

// violations lists how t breaks bucket b's rules ("base_sha is missing").
func violations(t *task.Task, b workflow.Bucket) []string {
	var out []string
	for _, r := range rules[b] {
		switch has := t.Str(r.key) != ""; {
		case r.set && !has:
			out = append(out, r.key+" is missing")
		case !r.set && has:
			out = append(out, r.key+" is set")
		}
	}
	return out
}

// fits lists the buckets whose rules t follows.
func fits(t *task.Task) []workflow.Bucket {
	var out []workflow.Bucket
	for _, b := range workflow.Buckets {
		if len(violations(t, b)) == 0 {
			out = append(out, b)
		}
	}
	return out
}

// transitions names the verb that moves a task from one bucket to another;
// a move no verb makes is never a repair.
var transitions = map[[2]workflow.Bucket]string{
	{workflow.Ready, workflow.Doing}:    "claim",
	{workflow.Doing, workflow.QA}:       "submit",
	{workflow.QA, workflow.Done}:        "approve",
	{workflow.QA, workflow.Ready}:       "reject",
	{workflow.QA, workflow.Blocked}:     "reject or block",
	{workflow.Doing, workflow.Ready}:    "release",
	{workflow.Ready, workflow.Blocked}:  "block",
	{workflow.Doing, workflow.Blocked}:  "block",
	{workflow.Blocked, workflow.Ready}:  "unblock",
	{workflow.Blocked, workflow.Doing}:  "unblock --claim",
	{workflow.Ready, workflow.Done}:     "cancel",
	{workflow.Doing, workflow.Done}:     "cancel",
	{workflow.Blocked, workflow.Done}:   "cancel",
	{workflow.Proposed, workflow.Ready}: "accept",
	{workflow.Proposed, workflow.Done}:  "cancel",
}
