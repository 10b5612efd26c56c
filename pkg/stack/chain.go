package stack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Link is one task of a stack as status and show draw it.
type Link struct {
	ID     string
	Bucket workflow.Bucket
	// On is the task it is stacked on ("" for the root, or unknown).
	On string
}

// Chain is the stack id belongs to, root first: the tasks it is stacked
// on (stacked_on, followed up to a task stacked on none), id itself, then
// the open tasks stacked on it and on those, depth first. A task in no
// stack is a chain of one.
func Chain(w *workflow.Workflow, e *workflow.Entry) []Link {
	chain := []Link{{ID: e.ID, Bucket: e.Bucket}}
	if e.Task == nil || e.Task.Str(task.KeyStackedOn) == "" && !w.Config.Stack {
		return chain
	}
	chain[0].On = e.Task.Str(task.KeyStackedOn)
	seen := map[string]bool{e.ID: true}
	for p := e.Task.Str(task.KeyStackedOn); p != "" && !seen[p]; {
		seen[p] = true
		pe, err := w.Get(p)
		if err != nil {
			chain = append([]Link{{ID: p}}, chain...)
			break
		}
		chain = append([]Link{{ID: p, Bucket: pe.Bucket}}, chain...)
		if pe.Task == nil {
			break
		}
		p = pe.Task.Str(task.KeyStackedOn)
		chain[0].On = p
	}
	children := map[string][]Link{}
	for _, b := range []workflow.Bucket{workflow.Ready, workflow.Doing, workflow.QA, workflow.Blocked} {
		es, _, err := w.InBucket(b)
		if err != nil {
			continue
		}
		for _, c := range es {
			if c.Task != nil {
				if p := c.Task.Str(task.KeyStackedOn); p != "" {
					children[p] = append(children[p], Link{ID: c.ID, Bucket: b, On: p})
				}
			}
		}
	}
	var down func(id string)
	down = func(id string) {
		for _, c := range children[id] {
			if !seen[c.ID] {
				seen[c.ID] = true
				chain = append(chain, c)
				down(c.ID)
			}
		}
	}
	down(e.ID)
	return chain
}

// Draw is a chain on one line, the task it was drawn for marked:
// "TASK-001 [QA] → TASK-002 [DOING] (this) → TASK-003 [READY]".
func Draw(chain []Link, this string) string {
	var parts []string
	for _, l := range chain {
		s := l.ID
		if l.Bucket != "" {
			s += " [" + string(l.Bucket) + "]"
		}
		if l.ID == this {
			s += " (this)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " → ")
}

// On is the task an open task's summary says it is stacked on, "" for
// none; fields reads its frontmatter (Workflow.FieldsOf). Only a task
// with dependencies can be stacked, so the others' is never read.
func On(s *workflow.Summary, fields func(*workflow.Summary) json.RawMessage) string {
	if len(s.DependsOn) == 0 {
		return ""
	}
	raw := fields(s)
	if !bytes.Contains(raw, []byte(`"`+task.KeyStackedOn+`"`)) {
		return ""
	}
	var f struct {
		On string `json:"stacked_on"`
	}
	if json.Unmarshal(raw, &f) != nil {
		return ""
	}
	return f.On
}

// Told is what a stacked task's agent is told of its stack, in its
// prompt ("" for a task stacked on nothing): where its work starts, what
// its gates judge, and that burl, not the agent, moves it onto main.
func Told(t *task.Task) string {
	p := t.Str(task.KeyStackedOn)
	if p == "" {
		return ""
	}
	return fmt.Sprintf("This task is stacked on %s, which was submitted and may not have landed yet: this worktree starts at %s's submitted head (stack_base %s), so its changes are already here. "+
		"Change only what this task asks; the gates judge your commits since stack_base. "+
		"Do not rebase onto main or merge it: when %s lands (its commits may be squashed into one), burl replays your commits onto main with git rebase --onto, and a conflict comes back to you in your next prompt.\n",
		p, p, gitx.Short(t.Str(task.KeyStackBase)), p)
}
