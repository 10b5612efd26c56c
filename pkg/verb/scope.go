package verb

import (
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/task"
)

// scopeOf is a task's declared scope, as the gates see it.
func scopeOf(t *task.Task) gate.Scope {
	return gate.Scope{
		Affects:      t.List(task.KeyAffects),
		AffectsGlobs: t.List(task.KeyAffectsGlobs),
		MustNotTouch: t.List(task.KeyMustNotTouch),
	}
}

func overlap(a, b *task.Task) (bool, string) { return gate.Overlap(scopeOf(a), scopeOf(b)) }
