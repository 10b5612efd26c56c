package verb

import (
	"fmt"
	"io"
	"strings"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/qa"
	"github.com/burl-dev/burl/pkg/workflow"
)

// moveOut is the result of a plain bucket move (reject, block, unblock, release).
type moveOut struct {
	Task   map[string]any `json:"task"`
	verb   string
	entry  workflow.Entry
	from   workflow.Bucket
	detail string
	w      *workflow.Workflow
}

func (o moveOut) Human(w io.Writer) {
	if o.from == o.entry.Bucket {
		fmt.Fprintf(w, "%s %s (%s)%s\n", o.verb, o.entry.ID, o.from, o.detail)
	} else {
		fmt.Fprintf(w, "%s %s: %s → %s%s\n", o.verb, o.entry.ID, o.from, o.entry.Bucket, o.detail)
	}
	if _, st := nextOf(o.w, &o.entry); st.Line() != "" {
		fmt.Fprintf(w, "next: %s\n", st.Line())
	}
}

func requireReason(verb, id, reason string) (string, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return "", errs.New(errs.User, "git burl %s needs --reason", verb).WithFix(`git burl %s %s --reason "what is wrong and how to fix it"`, verb, id)
	}
	return reason, nil
}

// move is a plain bucket move (reject, block, unblock, release): the
// verbs differ only in their buckets and in what Apply records.
type move struct {
	verb, label string
	from        []workflow.Bucket
	to          workflow.Bucket
	apply       func(w *workflow.Workflow, tx *workflow.Tx) error
	detail      func(e workflow.Entry) string
}

func (m move) run(ctx *cli.Context, id string) (cli.Output, error) {
	w, err := open(ctx)
	if err != nil {
		return nil, err
	}
	var from workflow.Bucket
	res, err := w.Run(workflow.Transition{
		Verb: m.verb, ID: id, From: m.from, To: m.to, Message: m.verb + " " + id,
		Apply: func(tx *workflow.Tx) error {
			from = tx.Entry.Bucket
			return m.apply(w, tx)
		},
	})
	if err != nil {
		return nil, err
	}
	out := moveOut{Task: taskObject(w, res.Entry), verb: m.label, entry: res.Entry, from: from, w: w}
	if m.detail != nil {
		out.detail = m.detail(res.Entry)
	}
	return out, nil
}

// oneLine is qa.OneLine: the verbs' reasons are flattened as the QA
// Report's are.
func oneLine(s string) string { return qa.OneLine(s) }
