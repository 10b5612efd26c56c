package authoring

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// editDoc is what edit --editor hands the editor: the fields edit changes.
type editDoc struct {
	Title       string   `yaml:"title"`
	Priority    string   `yaml:"priority"`
	Tags        []string `yaml:"tags,flow"`
	DependsOn   []string `yaml:"depends_on,flow"`
	MaxCostUSD  float64  `yaml:"max_cost_usd"`
	Description string   `yaml:"description"`
	AC          []string `yaml:"ac"`
}

const editorHelp = `# Edit %s and save; close the editor without a change to leave it as it is.
# Lines starting with # are ignored. max_cost_usd: 0 is no cap.
# The scope (affects, affects_globs, must_not_touch) changes only with
# git burl scope, which records why.
`

// editorFile keeps an edit that did not apply, so that the next
// edit --editor starts from it: nothing typed is lost.
func editorFile(w *workflow.Workflow, id string) string {
	return filepath.Join(w.Repo.CommonDir, "burl", "edit-"+id+".yaml")
}

// fromEditor has the user edit id's fields in their editor (git's:
// GIT_EDITOR, core.editor, VISUAL, EDITOR) and turns what they saved into
// edit's flags, so that the edit runs the one transition edit has.
func (c *editCmd) fromEditor(ctx *cli.Context, w *workflow.Workflow, id string) (bool, error) {
	e, err := w.Get(id)
	if err != nil {
		return false, err
	}
	t := e.Task
	cur := editDoc{Title: t.Title(), Priority: t.Priority(), Tags: t.List(task.KeyTags), DependsOn: t.List(task.KeyDependsOn),
		MaxCostUSD: t.MaxCostUSD(), Description: strings.TrimSpace(t.Section("Objective")), AC: criteria(t)}
	body, err := yaml.Marshal(cur)
	if err != nil {
		return false, err
	}
	start := []byte(fmt.Sprintf(editorHelp, id) + string(body))
	keep := editorFile(w, id)
	if prev, err := os.ReadFile(keep); err == nil {
		// The last edit that did not apply, with why, at the top.
		start = prev
	}
	if err := os.MkdirAll(filepath.Dir(keep), 0o755); err != nil {
		return false, err
	}
	path := filepath.Join(filepath.Dir(keep), "EDIT_"+id+".yaml")
	if err := os.WriteFile(path, start, 0o600); err != nil {
		return false, err
	}
	defer os.Remove(path)
	editor, err := w.Repo.Git.Run("var", "GIT_EDITOR")
	if err != nil || editor == "" {
		return false, errs.New(errs.User, "no editor: git var GIT_EDITOR names none").WithFix("set EDITOR, or git config core.editor")
	}
	// As git runs it: the user's own setting, through the shell, the
	// file an argument.
	cmd := exec.Command("sh", "-c", editor+` "$@"`, editor, path)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, ctx.Stderr, ctx.Stderr
	if err := cmd.Run(); err != nil {
		return false, errs.New(errs.User, "the editor (%s) failed: %v; nothing changed", editor, err).WithTitle("Cannot edit the task")
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	if bytes.Equal(saved, start) || len(bytes.TrimSpace(saved)) == 0 {
		_ = os.Remove(keep)
		return false, nil
	}
	bad := func(e *errs.Error) (bool, error) {
		// Kept, with why on top, for the next --editor to start from.
		if werr := os.WriteFile(keep, append([]byte(markBad(e.Reason)), dropComments(saved, "# ! ")...), 0o600); werr != nil {
			return false, werr
		}
		return false, e.WithTitle("Cannot edit the task: nothing changed").
			WithFix("your edit is kept in %s; git burl edit %s --editor opens it again (delete the file to start over)", keep, id)
	}
	var doc editDoc
	dec := yaml.NewDecoder(bytes.NewReader(saved))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		// Only comments left: nothing to apply.
		return false, nil
	} else if err != nil {
		return bad(errs.New(errs.User, "what was saved is not the task's fields: %v", err))
	}
	if again, err := yaml.Marshal(doc); err == nil && bytes.Equal(again, body) {
		_ = os.Remove(keep)
		return false, nil
	}
	switch {
	case strings.TrimSpace(doc.Title) == "":
		return bad(errs.New(errs.User, "the title is empty"))
	case strings.ContainsAny(doc.Title, "\n\r"):
		return bad(errs.New(errs.User, "the title must be one line"))
	case task.PriorityRank(doc.Priority) == len(task.Priorities):
		return bad(errs.New(errs.User, "priority %q is not one of %s", doc.Priority, strings.Join(task.Priorities, ", ")))
	case doc.MaxCostUSD < 0:
		return bad(errs.New(errs.User, "max_cost_usd must be 0 (no cap) or more"))
	}
	for _, d := range doc.DependsOn {
		n, err := task.NormalizeID(d)
		if err == nil && !slices.Contains(cur.DependsOn, n) {
			err = checkDependency(w, id, n)
		}
		if err != nil {
			var e *errs.Error
			if errors.As(err, &e) {
				return bad(e)
			}
			return bad(errs.New(errs.User, "depends_on %s: %v", d, err))
		}
	}
	c.Title, c.Priority = doc.Title, doc.Priority
	c.AddTag, c.RemoveTag = diff(cur.Tags, doc.Tags)
	c.DependsOn, c.RemoveDependsOn = diff(cur.DependsOn, doc.DependsOn)
	if doc.MaxCostUSD != cur.MaxCostUSD {
		c.MaxCostUSD = &doc.MaxCostUSD
	}
	if strings.TrimSpace(doc.Description) != cur.Description {
		c.Description = &doc.Description
	}
	if !slices.Equal(doc.AC, cur.AC) && len(doc.AC) > 0 {
		c.AC = doc.AC
	}
	_ = os.Remove(keep)
	return true, nil
}

// markBad is the comment an edit kept for another try starts with.
func markBad(reason string) string {
	return "# ! not applied: " + strings.ReplaceAll(reason, "\n", " ") + "\n"
}

// dropComments leaves out the lines of an earlier markBad.
func dropComments(b []byte, prefix string) []byte {
	var out []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if !strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return []byte(strings.Join(out, ""))
}

// diff is what to add to from and what to take out of it to make to.
func diff(from, to []string) (add, remove []string) {
	for _, t := range to {
		if !slices.Contains(from, t) {
			add = append(add, t)
		}
	}
	for _, f := range from {
		if !slices.Contains(to, f) {
			remove = append(remove, f)
		}
	}
	return add, remove
}
