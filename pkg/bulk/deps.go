package bulk

import (
	"fmt"
	"strings"

	"github.com/burl-dev/burl/pkg/task"
)

// Dep is one depends_on item of an entry: another entry of the same file
// (Local, its index), whose task ID is only known once add allocates the
// IDs, or else Ref, a task the workflow should already hold.
type Dep struct {
	Local int
	Ref   string
}

// Deps resolves every entry's depends_on. An item names an entry of the
// file by its id or, failing that, by its title (case-insensitive);
// anything else is left for add to find in the workflow. Within the file
// a task cannot depend on itself, and the dependencies cannot go round in
// a cycle: no order would ever let one of those tasks be claimed.
func Deps(entries []Entry) ([][]Dep, error) {
	ids, titles := map[string]int{}, map[string]int{}
	for i, e := range entries {
		if e.ID == "" {
			continue
		}
		k := strings.ToLower(strings.TrimSpace(e.ID))
		if _, err := task.NormalizeID(k); err == nil {
			return nil, fmt.Errorf("line %d: task %d: id %q looks like a task ID: name it with a word (parse, docs-1)", e.Line, i+1, e.ID)
		}
		if j, dup := ids[k]; dup {
			return nil, fmt.Errorf("line %d: task %d: id %q is task %d's too", e.Line, i+1, e.ID, j+1)
		}
		ids[k] = i
	}
	for i, e := range entries {
		titles[strings.ToLower(strings.TrimSpace(e.Title))] = i
	}
	out := make([][]Dep, len(entries))
	for i, e := range entries {
		for _, d := range e.DependsOn {
			k := strings.ToLower(strings.TrimSpace(d))
			j, ok := ids[k]
			if !ok {
				j, ok = titles[k]
			}
			switch {
			case !ok:
				out[i] = append(out[i], Dep{Local: -1, Ref: d})
			case j == i:
				return nil, fmt.Errorf("line %d: task %d depends on itself (%q)", e.Line, i+1, d)
			default:
				out[i] = append(out[i], Dep{Local: j})
			}
		}
	}
	if c := cycle(out); c != nil {
		names := make([]string, len(c))
		for n, i := range c {
			names[n] = fmt.Sprintf("task %d (%q)", i+1, entries[i].Title)
		}
		return nil, fmt.Errorf("line %d: the dependencies go round in a cycle: %s", entries[c[0]].Line, strings.Join(names, " → "))
	}
	return out, nil
}

// cycle is the entries of one dependency cycle among the file's own
// entries, the first entry repeated at the end; nil when there is none.
func cycle(deps [][]Dep) []int {
	const (
		unseen = iota
		open
		closed
	)
	state := make([]int, len(deps))
	var path []int
	var visit func(i int) []int
	visit = func(i int) []int {
		state[i] = open
		path = append(path, i)
		for _, d := range deps[i] {
			if d.Local < 0 {
				continue
			}
			switch state[d.Local] {
			case open:
				for k, p := range path {
					if p == d.Local {
						return append(append([]int{}, path[k:]...), d.Local)
					}
				}
			case unseen:
				if c := visit(d.Local); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[i] = closed
		return nil
	}
	for i := range deps {
		if state[i] == unseen {
			if c := visit(i); c != nil {
				return c
			}
		}
	}
	return nil
}
