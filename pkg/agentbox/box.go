// Package agentbox is the box an agent's runs share, as agents.yaml
// describes the agent (DESIGN §24): what they may write, what they see of
// the agents' programs, which stay read-only; the programs burl itself
// runs once a run started, refused where a run can write; whether an
// agent's program can start here at all (DESIGN §20); and the command
// watch runs for an agent, as watch --print-command shows it.
package agentbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/bwrapbox"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/forge"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Of is the part of agent a's box its runs share (DESIGN §24), a being
// one of the agents of f: the language caches, its preset's paths and
// agents.yaml's sandbox_write writable; its program visible.
func Of(f *agents.File, a agents.Agent) *bwrapbox.Box {
	write := bwrapbox.WritePaths(bwrapbox.DefaultWrite(), "a language cache (every box)")
	if a.Preset != "" {
		write = append(write, bwrapbox.WritePaths(bwrapbox.PresetWrite[a.Preset], "what the "+a.Preset+" preset's CLI writes")...)
	}
	write = append(write, bwrapbox.WritePaths(a.Write, "agents.yaml sandbox_write")...)
	var see []string
	if p := resolved(a); filepath.IsAbs(p) {
		see = append(see, filepath.Dir(p))
	}
	// The PATH its env: sets, where its program is looked up in the box.
	for _, d := range filepath.SplitList(a.Env["PATH"]) {
		if filepath.IsAbs(d) {
			see = append(see, d)
		}
	}
	b := bwrapbox.AgentBox(write, see...)
	// Every agent's program, read-only in every box, even where its
	// directory is writable (sandbox_write): no run rewrites what a later
	// run starts, its reviewer's above all, whose verdict lands the task.
	for _, o := range append([]agents.Agent{a}, f.Agents...) {
		if p := resolved(o); filepath.IsAbs(p) {
			b.Read(p, "an agent's program: no run rewrites what a later run (a reviewer's) starts")
		}
	}
	return b
}

// resolved is agent a's program as an absolute path, when PATH finds it
// (or it is one); else as written.
func resolved(a agents.Agent) string {
	if len(a.Command) == 0 {
		return ""
	}
	p := a.Command[0]
	if strings.Contains(p, "{") || filepath.IsAbs(p) || strings.Contains(p, "/") {
		return p
	}
	if abs, err := exec.LookPath(p); err == nil {
		if abs, err := filepath.Abs(abs); err == nil {
			return abs
		}
	}
	return p
}

// runWritable are the directories some run could write, as the boxes of
// the agents of f have them: their worktrees, the runs folder, every
// sandbox_write path. Nothing burl executes may lie in one.
func runWritable(w *workflow.Workflow, f *agents.File) []string {
	out := []string{w.Repo.WorktreesDir(), w.Repo.RunsDir()}
	for _, a := range f.Agents {
		out = append(out, Of(f, a).Writable()...)
	}
	return out
}

// inWritable names the writable directory p (or what it links to) lies
// in, "" when none.
func inWritable(p string, writable []string) string {
	cands := []string{filepath.Clean(p)}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		cands = append(cands, r)
	}
	for _, c := range cands {
		for _, d := range writable {
			rd := d
			if r, err := filepath.EvalSymlinks(d); err == nil {
				rd = r
			}
			if within(c, d) || within(c, rd) {
				return d
			}
		}
	}
	return ""
}

func within(p, dir string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// ResolvePrograms resolves, at watch's start, for the agents of f, every program burl
// executes after a run starts to an absolute path (bubblewrap, git,
// burl's own verbs), and refuses one that lies where a run can write
// (DESIGN §24): a run's program there would be run by burl, outside any
// box, after it.
func ResolvePrograms(w *workflow.Workflow, f *agents.File) error {
	writable := runWritable(w, f)
	check := func(what, p string) error {
		if d := inWritable(p, writable); d != "" {
			return errs.New(errs.User, "%s %s lies in %s, which an agent's run can write: watch runs no program from there", what, p, d).
				WithFix("install %s outside every sandbox_write path and the repository's worktrees (e.g. /usr/bin), or take %s out of sandbox_write in agents.yaml", filepath.Base(p), d)
		}
		return nil
	}
	if f.Sandbox != agents.SandboxNone {
		if bin, err := bwrapbox.BwrapProgram(); err == nil {
			if err := check("bubblewrap", bin); err != nil {
				return err
			}
		}
	}
	git, err := exec.LookPath("git")
	if err != nil {
		return errs.New(errs.User, "git is not on PATH").WithFix("install git")
	}
	if git, err = filepath.Abs(git); err != nil {
		return err
	}
	if err := check("git", git); err != nil {
		return err
	}
	gitx.SetProgram(git)
	if exe, err := os.Executable(); err == nil {
		if err := check("burl's own program", exe); err != nil {
			return err
		}
	}
	if err := checkAgentPrograms(w, f); err != nil {
		return err
	}
	for _, tool := range []string{"gh", "glab"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			continue // not installed: a forge that needs it says so
		}
		if p, err = filepath.Abs(p); err != nil {
			return err
		}
		if err := check("the forge CLI", p); err != nil {
			return err
		}
		forge.Pin(tool, p)
	}
	return nil
}

// checkAgentPrograms refuses an agent's program that lies where a run
// writes what burl later checks out or reads (the worktrees, the runs
// folder: a reviewer started from there runs the author's code), or, with
// the sandbox on, in a sandbox_write path that its boxes could not keep
// read-only. Elsewhere in a sandbox_write path every box holds it
// read-only (Of). With sandbox: none a run can write whatever the
// user can, and burl says so at start.
func checkAgentPrograms(w *workflow.Workflow, f *agents.File) error {
	burls := []string{w.Repo.WorktreesDir(), w.Repo.RunsDir(), w.Repo.CommonDir}
	for _, a := range f.Agents {
		p := resolved(a)
		if !filepath.IsAbs(p) {
			continue
		}
		if d := inWritable(p, burls); d != "" {
			return errs.New(errs.User, "agent %s's program %s lies in %s, which runs write: watch starts no agent from there", a.Name, p, d).
				WithFix("install the agent's program outside the repository's worktrees and .git (e.g. ~/.local/bin), and name it in agents.yaml")
		}
		if f.Sandbox == agents.SandboxNone {
			continue
		}
		if r, err := filepath.EvalSymlinks(p); err == nil && r != filepath.Clean(p) {
			if d := inWritable(r, runWritable(w, f)); d != "" {
				return errs.New(errs.User, "agent %s's program %s links to %s, in %s, which an agent's run can write: watch starts no agent from there", a.Name, p, r, d).
					WithFix("name the program's real path in agents.yaml, or install it outside every sandbox_write path")
			}
		}
	}
	return nil
}
