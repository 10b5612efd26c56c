// Package gateinput holds what a gate reads of the workflow branch: the
// committed config.yaml and task gate fields, refused when an uncommitted
// edit or a commit other than git burl scope changed them (DESIGN §15).
package gateinput

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/bucket"
	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gitobj"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/provenance"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/task"
)

// Inputs is the workflow, for the inputs of its gates.
type Inputs struct {
	Repo   *repo.Repo
	Config *config.Config
	Dir    string   // the workflow folder (<workflow worktree>/.workflow)
	Git    gitx.Git // git in the workflow worktree
	// Get finds and parses one task, as the workflow does.
	Get func(id string) (*bucket.Entry, error)
}

func (w *Inputs) gitWT() gitx.Git { return w.Git }

// Rel renders a path relative to the repository root.
func (w *Inputs) Rel(p string) string { return w.Repo.Rel(p) }

// recorded is provenance.Branch.Recorded of the workflow branch.
func (w *Inputs) recorded(id string, shards map[string][]string) (map[string]map[string]bool, error) {
	return (&provenance.Branch{Dir: w.Dir, Git: w.Git}).Recorded(id, shards)
}

// GateFields are the frontmatter keys of a task that its gates read
// (DESIGN §15): after claim they change only by `git burl scope`.
var GateFields = []string{task.KeyAffects, task.KeyAffectsGlobs, task.KeyMustNotTouch, task.KeyVerify, task.KeyDependsOn}

// gateOf is a task's gate fields in one comparable text, with the values
// for messages.
func gateOf(t *task.Task) (string, map[string]any) {
	m := map[string]any{}
	for _, k := range GateFields {
		if k == task.KeyVerify {
			m[k] = t.Str(k)
		} else {
			m[k] = t.List(k)
		}
	}
	j, _ := json.Marshal(m)
	return string(j), m
}

// configGate is what of config.yaml decides a gate: the build and the
// stub scanner.
func configGate(c *config.Config) map[string]any {
	return map[string]any{"build_command": c.BuildCommand, "build_timeout": c.BuildTimeout.String(),
		"stub_patterns": c.StubPatterns, "stub_check_extensions": c.StubCheckExtensions}
}

// CheckGateInputs refuses to gate t on inputs the worker could have
// changed unseen: an uncommitted edit of config.yaml's gate keys or of
// the task's gate fields (exit 1), or a claimed task's gate fields changed
// since its claim by any commit but a `git burl scope` (exit 2, the commit
// named). Gates read committed state, or nothing.
func (w *Inputs) CheckGateInputs(t *task.Task) error {
	if !w.Config.WorkflowAutoCommit {
		// Nothing is committed as it happens: there is no committed state
		// to read, and the human who turned this off commits by hand.
		return nil
	}
	if err := w.CheckConfigInput(); err != nil {
		return err
	}
	g := w.gitWT()
	e, err := w.Get(t.ID())
	if err != nil {
		return err
	}
	rel := w.relWT(e.Path)
	data, err := blobAt(g, "HEAD:"+rel)
	if err != nil {
		return errs.New(errs.User, "%s is not committed on the workflow branch: its gates would read what nobody recorded", w.Rel(e.Path)).
			WithFix("git burl doctor (and git burl doctor --repair) commits or restores it")
	}
	committed, err := task.Parse([]byte(data + "\n"))
	if err != nil {
		return err
	}
	cur, curVals := gateOf(t)
	was, wasVals := gateOf(committed)
	if cur != was {
		return uncommitted(w, e.Path, differ(curVals, wasVals))
	}
	if e.Bucket != bucket.Doing && e.Bucket != bucket.QA {
		return nil
	}
	return w.gateHistory(t, e)
}

// CheckConfigInput is CheckGateInputs for config.yaml alone: what the
// queue asks before anything (trust included), as every task shares it.
func (w *Inputs) CheckConfigInput() error {
	if !w.Config.WorkflowAutoCommit {
		return nil
	}
	cfgRel := filepath.ToSlash(filepath.Join(filepath.Base(w.Dir), bucket.ConfigName))
	data, err := blobAt(w.gitWT(), "HEAD:"+cfgRel)
	if err != nil {
		return nil
	}
	committed, err := config.Parse(cfgRel, []byte(data))
	if err != nil {
		return nil
	}
	if keys := differ(configGate(w.Config), configGate(committed)); len(keys) > 0 {
		return uncommitted(w, filepath.Join(w.Dir, bucket.ConfigName), keys)
	}
	return nil
}

func differ(a, b map[string]any) []string {
	var out []string
	for k, v := range a {
		x, _ := json.Marshal(v)
		y, _ := json.Marshal(b[k])
		if string(x) != string(y) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func uncommitted(w *Inputs, path string, keys []string) error {
	rel := w.relWT(path)
	return errs.New(errs.User, "uncommitted edit of a gate input: %s (%s); the gates read the workflow branch's committed state",
		w.Rel(path), strings.Join(keys, ", ")).
		WithFix("commit it (git -C %s commit -m '...' -- %s), then git burl trust asks about any command in it; or discard it (git -C %s checkout -- %s)",
			w.Rel(w.Repo.Worktree), rel, w.Rel(w.Repo.Worktree), rel)
}

// relWT is p relative to the workflow worktree, as git paths there are.
func (w *Inputs) relWT(p string) string {
	r, err := filepath.Rel(w.Repo.Worktree, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}

// gateHistory walks the commits that touched the task file since its claim
// (oldest first): its gate fields as the claim commit left them may change
// only in a `scope` commit burl made, which records the scope event. The
// first other commit that changed them is named.
func (w *Inputs) gateHistory(t *task.Task, e *bucket.Entry) error {
	started, err := time.Parse(time.RFC3339, t.Str(task.KeyStartedAt))
	if err != nil {
		return nil
	}
	g := w.gitWT()
	wf := filepath.ToSlash(filepath.Base(w.Dir))
	since := started.Add(-2 * time.Second)
	claimOrScope := func(subject string) bool { return subject == "claim "+t.ID() || subject == "scope "+t.ID() }
	cs, shards, ok := walkHistory(g, since, wf, filepath.Base(e.Path), claimOrScope)
	if !ok {
		if cs, shards, err = logHistory(g, since, wf, filepath.Base(e.Path)); err != nil {
			return err
		}
	}
	// A commit that says it is t's claim or a scope of t counts only when
	// it records that event itself (DESIGN §24): a subject is anyone's.
	named := map[string][]string{}
	for _, c := range cs {
		if claimOrScope(c.subject) {
			named[c.sha] = shards[c.sha]
		}
	}
	did, err := w.recorded(t.ID(), named)
	if err != nil {
		return err
	}
	claim := -1
	for i, c := range cs {
		if c.subject == "claim "+t.ID() && did[c.sha]["claim"] {
			claim = i
		}
	}
	if claim < 0 {
		// The claim is older than the window git could date (clock skew):
		// nothing to compare with.
		return nil
	}
	cs = cs[claim:]
	var names []string
	var owner []int
	for i, c := range cs {
		for _, p := range c.paths {
			names = append(names, c.sha+":"+p)
			owner = append(owner, i)
		}
	}
	texts := make([]string, len(cs))
	vals := make([]map[string]any, len(cs))
	err = gitobj.CatBatch(g, names, func(n int, oid, kind string, body []byte) error {
		i := owner[n]
		if kind != "blob" || vals[i] != nil {
			// The old path of a move: the file is under its new name.
			return nil
		}
		if pt, err := task.Parse(body); err == nil {
			texts[i], vals[i] = gateOf(pt)
		}
		return nil
	})
	if err != nil {
		return err
	}
	expected, expVals := texts[0], vals[0]
	for i := 1; i < len(cs); i++ {
		switch {
		case vals[i] == nil:
		case cs[i].subject == "scope "+t.ID() && did[cs[i].sha]["scope"]:
			expected, expVals = texts[i], vals[i]
		case texts[i] != expected:
			return errs.New(errs.Validation, "%s's gate fields (%s) were changed by commit %s (%q), not by git burl scope; the gates will not read them",
				t.ID(), strings.Join(differ(vals[i], expVals), ", "), cs[i].sha[:10], cs[i].subject).
				WithFix("a human puts them back as they were (%s) and commits, or grants a scope with git burl scope %s --affects ... --reason '...'; verify and depends_on change by git burl reject %s, an edit in READY and a new claim. An agent cannot change its own gates",
					gateWords(expVals), t.ID(), t.ID())
		}
	}
	return nil
}

// logHistory is walkHistory asked of git: one log lists the commits that
// touched the task file and the event log's shards each changed.
func logHistory(g gitx.Git, since time.Time, wf, file string) ([]commit, map[string][]string, error) {
	evDir := wf + "/" + bucket.EventsDirName + "/"
	spec := ":(glob)" + wf + "/*/" + file
	out, err := g.Run("log", "--reverse", "--no-renames", "--format=%x01%H %s", "--name-only",
		"--since="+since.Format(time.RFC3339), "HEAD", "--", spec, ":(glob)"+evDir+"**")
	if err != nil {
		return nil, nil, err
	}
	var cs []commit
	shards := map[string][]string{}
	for _, block := range strings.Split(out, "\x01") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) == 0 || lines[0] == "" {
			continue
		}
		c := commit{}
		c.sha, c.subject, _ = strings.Cut(lines[0], " ")
		// burl's own commits are "burl: <verb> <ID>"; by hand, anything.
		c.subject = strings.TrimPrefix(c.subject, "burl: ")
		for _, l := range lines[1:] {
			switch l = strings.TrimSpace(l); {
			case l == "":
			case strings.HasPrefix(l, evDir):
				shards[c.sha] = append(shards[c.sha], l)
			default:
				c.paths = append(c.paths, l)
			}
		}
		if len(c.paths) > 0 {
			cs = append(cs, c)
		}
	}
	return cs, shards, nil
}

// gateWords is a task's gate fields as a reader types them back.
func gateWords(vals map[string]any) string {
	var out []string
	for _, k := range GateFields {
		switch v := vals[k].(type) {
		case string:
			if v != "" {
				out = append(out, k+": "+v)
			}
		case []string:
			if len(v) > 0 {
				out = append(out, k+": ["+strings.Join(v, ", ")+"]")
			}
		}
	}
	if len(out) == 0 {
		return "all empty"
	}
	return strings.Join(out, "; ")
}

// CommittedInput is a gate input of the workflow folder as the workflow
// branch's commit holds it: its bytes and whether it is there. Without
// workflow_auto_commit nothing is committed as it happens, and the file
// itself is the input.
func (w *Inputs) CommittedInput(path string) ([]byte, bool, error) {
	if !w.Config.WorkflowAutoCommit {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		return data, err == nil, err
	}
	data, err := blobAt(w.gitWT(), "HEAD:"+w.relWT(path))
	if err != nil {
		// Not in the commit: git names no other reason worth telling
		// apart here (the branch itself was read when w opened).
		return nil, false, nil
	}
	return []byte(data), true, nil
}

// UncommittedInput is the error of an uncommitted edit of a gate input:
// keys of the file at path differ from what the workflow branch holds.
func (w *Inputs) UncommittedInput(path string, keys []string) error {
	return uncommitted(w, path, keys)
}

// blobAt is the blob name with surrounding white space trimmed, as
// `git cat-file blob` read through Run gave it, through the process's one
// cat-file (DESIGN §28).
func blobAt(g gitx.Git, name string) (string, error) {
	b, err := g.Blob(name)
	return strings.TrimSpace(string(b)), err
}
