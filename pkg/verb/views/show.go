package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/next"
	"github.com/burl-dev/burl/pkg/review"
	"github.com/burl-dev/burl/pkg/stack"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Show is `git burl show`: what cmd/git-burl-show runs. Only the
// verbs a binary names are linked into it.
func Show() cli.Command { return &showCmd{} }

type showCmd struct {
	cli.JSONFlag
}

type showOut struct {
	Task map[string]any `json:"task"`
	Body string         `json:"body"`
	Next verb.StepOut   `json:"next"`
	// Stack is the chain the text view draws, root first, when the task
	// is in one of two or more.
	Stack []stackLink `json:"stack,omitempty"`
	entry *workflow.Entry
	rel   string
	facts next.Facts
	step  next.Step
	// chain is the stack the task belongs to (DESIGN §26), root first.
	chain []stack.Link
}

func (c *showCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	// Standing in a task's worktree, the task is the one it holds.
	id, err := w.TaskArgOrCurrent(args, ctx.Dir, "show")
	if err != nil {
		return nil, err
	}
	e, err := w.Get(id)
	if err != nil {
		return nil, err
	}
	f, st := verb.NextOf(w, e)
	o := &showOut{Task: verb.TaskObject(w, *e), Body: e.Task.Body(), Next: verb.StepJSON(f, st), entry: e, rel: w.Rel(e.Path), facts: f, step: st, chain: stack.Chain(w, e)}
	if len(o.chain) > 1 {
		for _, l := range o.chain {
			o.Stack = append(o.Stack, stackLink{ID: l.ID, Bucket: string(l.Bucket), StackedOn: l.On})
		}
	}
	return o, nil
}

// stackLink is one task of show --json's stack: its bucket ("" for one
// not found) and the task it is stacked on ("" for the root).
type stackLink struct {
	ID        string `json:"id"`
	Bucket    string `json:"bucket"`
	StackedOn string `json:"stacked_on"`
}

func (o *showOut) Human(w io.Writer) {
	t := o.entry.Task
	fmt.Fprintf(w, "%s  %s\n", o.entry.ID, cli.Escape(t.Title()))
	fmt.Fprintf(w, "%-14s %s\n", "bucket:", o.entry.Bucket)
	fmt.Fprintf(w, "%-14s %s\n", "file:", o.rel)
	fmt.Fprintf(w, "%-14s %s\n", "priority:", t.Priority())
	for _, k := range []string{task.KeyAssignedTo, task.KeyBranch, task.KeyWorktree, task.KeyBaseSHA, task.KeySubmittedSHA,
		task.KeyStartedAt, task.KeySubmittedAt, task.KeyCompletedAt, task.KeyVerify, task.KeyBlockedReason, task.KeyHeldReason, task.KeyResolution, task.KeyCancelledReason, task.KeyScopeRequest, task.KeyPRURL, task.KeyPRNumber, task.KeyPRHead, task.KeyProposedBy, task.KeyDiscoveredFrom} {
		if v := t.Str(k); v != "" {
			// A reason is printed whole: it is why a human is needed.
			fmt.Fprintf(w, "%-14s %s\n", k+":", strings.ReplaceAll(cli.Escape(v), "\\n", "\n"+strings.Repeat(" ", 15)))
		}
	}
	if n := t.Int(task.KeyQAAttempts); n > 0 {
		fmt.Fprintf(w, "%-14s %d\n", "qa_attempts:", n)
	}
	if len(o.chain) > 1 {
		fmt.Fprintf(w, "%-14s %s\n", "stack:", cli.Escape(stack.Draw(o.chain, o.entry.ID)))
	}
	if r := review.Describe(t.Str(task.KeyReviewVerdict), t.Str(task.KeyReviewer), t.Str(task.KeyReviewHead), t.Int(task.KeyReviewRounds)); r != "" {
		if o.entry.Bucket == workflow.QA && t.Str(task.KeyReviewHead) != t.Str(task.KeySubmittedSHA) {
			// A verdict of an earlier head says nothing of this one.
			r = "the submitted head waits for its review (the last: " + r + ")"
		}
		fmt.Fprintf(w, "%-14s %s\n", "review:", cli.Escape(r))
	}
	for _, k := range []string{task.KeyAffects, task.KeyAffectsGlobs, task.KeyMustNotTouch, task.KeyDependsOn, task.KeyTags} {
		if l := t.List(k); len(l) > 0 {
			fmt.Fprintf(w, "%-14s %s\n", k+":", strings.Join(l, ", "))
		}
	}
	if o.facts.Holder.Gone() {
		fmt.Fprintf(w, "%-14s %s\n", "lost:", cli.Escape(o.facts.Holder.Describe()))
	}
	if s := o.step.Line(); s != "" {
		fmt.Fprintf(w, "%-14s %s\n", "next:", s)
	}
	fmt.Fprint(w, task.Readable(t.Body()))
}
