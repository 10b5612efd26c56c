package upkeep

import (
	"fmt"
	"io"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/doctor"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/workspace"
)

// Clean is `git burl clean`: what cmd/git-burl-clean runs. Only the
// verbs a binary names are linked into it.
func Clean() cli.Command { return &cleanCmd{} }

type cleanCmd struct {
	cli.JSONFlag
	Yes   bool `long:"yes" short:"y" description:"Remove what is listed; without it clean only lists"`
	Force bool `long:"force" description:"Also remove worktrees with uncommitted changes and branches holding commits main lacks"`
}

// cleanItem is one worktree or branch clean looked at.
type cleanItem struct {
	Kind string  `json:"kind"` // worktree | branch
	Name string  `json:"name"` // the worktree's path (repo-relative) or the branch
	Task *string `json:"task"` // the DONE task it belonged to; null for an orphan
	// Remove: it is (or, in a dry run, would be) removed; otherwise Kept
	// says why it stays.
	Remove bool   `json:"remove"`
	Kept   string `json:"kept,omitempty"`
}

type cleanOut struct {
	DryRun bool        `json:"dry_run"`
	Items  []cleanItem `json:"items"`
	Commit string      `json:"commit,omitempty"`
}

func (o cleanOut) Human(w io.Writer) {
	if len(o.Items) == 0 {
		fmt.Fprintln(w, "Nothing to clean.")
		return
	}
	remove, keep := "Removed:", "Kept:"
	if o.DryRun {
		remove, keep = "Would remove:", "Would keep:"
	}
	for _, sect := range []struct {
		title  string
		remove bool
	}{{remove, true}, {keep, false}} {
		first := true
		for _, it := range o.Items {
			if it.Remove != sect.remove {
				continue
			}
			if first {
				fmt.Fprintln(w, sect.title)
				first = false
			}
			whose := "no task"
			if it.Task != nil {
				whose = *it.Task + " is DONE"
			}
			line := fmt.Sprintf("  %-8s %s  (%s)", it.Kind, it.Name, whose)
			if it.Kept != "" {
				line += ": " + it.Kept
			}
			fmt.Fprintln(w, line)
		}
	}
	if o.DryRun {
		fmt.Fprintln(w, "Run git burl clean --yes to remove them.")
	}
}

func (c *cleanCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 0 {
		return nil, cli.UsageError("clean", "takes no arguments")
	}
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	if c.Yes {
		// Held while removing: no transition may create a task branch or
		// worktree that this clean just judged orphaned.
		wl, err := w.LockWorkflow("clean")
		if err != nil {
			return nil, err
		}
		defer wl.Release()
	}
	lefts, err := doctor.Leftovers(w)
	if err != nil {
		return nil, err
	}
	g, main := w.Repo.Git, w.Config.MainBranch
	if len(lefts) > 0 && w.HasRemote() {
		// Tasks approved from other clones are in the remote's main only:
		// without it, their branches here would look unmerged.
		remote := w.Config.Remote
		if err := g.FetchTracking(remote, main); err != nil {
			ctx.Warnf("cannot fetch %s from %s; judging branches against what this clone has: %v", main, remote, err)
		}
	}
	mains := doctor.MainRefs(w)
	out := cleanOut{DryRun: !c.Yes, Items: []cleanItem{}}
	gone := map[string]bool{} // worktrees removed (or that would be): their branch is free
	var removed []map[string]string
	for _, l := range lefts {
		it := cleanItem{Kind: "branch", Name: l.Branch}
		if l.Task != "" {
			it.Task = strp(l.Task)
		}
		if l.Worktree != "" {
			it.Kind, it.Name = "worktree", w.Rel(l.Worktree)
			it.Kept = c.keepWorktree(l.Worktree)
		} else {
			it.Kept = c.keepBranch(g, l.Branch, main, mains, gone)
		}
		it.Remove = it.Kept == ""
		if it.Remove && c.Yes {
			if err := c.remove(g, l); err != nil {
				it.Remove, it.Kept = false, err.Error()
			} else {
				removed = append(removed, map[string]string{"kind": it.Kind, "name": it.Name})
			}
		}
		if it.Remove && l.Worktree != "" {
			gone[l.Branch] = true
		}
		out.Items = append(out.Items, it)
	}
	if len(removed) > 0 {
		if out.Commit, err = w.Event("clean", "", map[string]any{"removed": removed, "force": c.Force},
			fmt.Sprintf("clean: removed %d worktree(s)/branch(es)", len(removed))); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func strp(s string) *string { return &s }

// keepWorktree says why a worktree stays, or "" when it may go: never
// with uncommitted work, unless --force.
func (c *cleanCmd) keepWorktree(path string) string {
	if c.Force {
		return ""
	}
	dirty, err := gitx.In(path).Run("status", "--porcelain", "--untracked-files=all")
	if err != nil || dirty == "" {
		return "" // a worktree whose directory is gone has nothing to lose
	}
	return "it has uncommitted changes (--force removes them too)"
}

// keepBranch says why a branch stays, or "" when it may go: not while a
// worktree that stays has it checked out, and never with commits main
// lacks, unless --force.
func (c *cleanCmd) keepBranch(g gitx.Git, branch, main string, mains []string, gone map[string]bool) string {
	if at, err := workspace.CheckedOutAt(g, branch); err != nil {
		return err.Error()
	} else if at != nil && !gone[branch] {
		return "it is checked out at " + at.Path
	}
	if c.Force || doctor.Merged(g, branch, mains) {
		return ""
	}
	n, _ := g.Run("rev-list", "--count", "refs/heads/"+main+"..refs/heads/"+branch)
	return fmt.Sprintf("it holds %s commit(s) %s lacks (--force deletes it)", n, main)
}

func (c *cleanCmd) remove(g gitx.Git, l doctor.Leftover) error {
	if l.Worktree != "" {
		return workspace.Remove(g, l.Worktree, c.Force)
	}
	_, err := g.Run("branch", "-D", l.Branch)
	return err
}
