package verb

import (
	"fmt"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Accept is `git burl accept`: what cmd/git-burl-accept runs. Only the
// verbs a binary names are linked into it.
func Accept() cli.Command { return &acceptCmd{} }

type acceptCmd struct {
	cli.JSONFlag
}

// Run moves a task an agent proposed (DESIGN §27) from PROPOSED to READY,
// where agents claim it: a human's word, through the one transaction
// runner. discovered_from stays; who proposed it goes to the QA report
// and the event, so that READY holds no proposal.
func (c *acceptCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	id, err := taskArg(args, "accept")
	if err != nil {
		return nil, err
	}
	return move{verb: "accept", label: "Accepted", from: []workflow.Bucket{workflow.Proposed}, to: workflow.Ready,
		apply: func(w *workflow.Workflow, tx *workflow.Tx) error {
			t := tx.Task
			by, from := t.Str(task.KeyProposedBy), t.Str(task.KeyDiscoveredFrom)
			note := fmt.Sprintf("### Accepted — %s by %s\n\nProposed by %s", tx.Now.Format("2006-01-02T15:04:05Z"), w.Actor, oneLine(by))
			if from != "" {
				note += ", discovered from " + from
				tx.Details["discovered_from"] = from
			}
			t.AppendToSection("QA Report", note+".\n")
			t.SetNull(task.KeyProposedBy)
			tx.Details["proposed_by"] = by
			return nil
		},
	}.run(ctx, id)
}
