package stack

import (
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/workflow"
)

// LandedOn is Restack for a parent the forge merged (landing: pr): the
// children are replayed onto onto, the commit of the remote's main that
// holds the parent as landed, which this clone's main may not have yet;
// where names it in the lines ("origin/main").
func LandedOn(w *workflow.Workflow, parent, landed, onto, where string) []string {
	return restackAll(w, parent, move{onto: onto, where: where, why: parent + " landed as " + gitx.Short(landed), landed: landed})
}
