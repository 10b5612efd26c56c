package qa

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/sandbox"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// GateBox is where build_command, a task's verify and worktree_setup's
// command run in the checkout
// dir (DESIGN §24): the project's code is agent code wherever burl runs
// it, by watch or by hand. agents.yaml's sandbox: decides as for agents
// (none: no box; auto, bwrap: a gate box, and none at all where
// bubblewrap cannot run: the gate is refused, naming both ways out), its
// sandbox_write: what the box may write besides the checkout and the
// language caches, sandbox_hide: what it must not read, gate_network: true
// (trusted) the network.
func GateBox(w *workflow.Workflow, dir string, commands ...string) (gate.Box, error) {
	if _, ok := sandbox.Active(w.Repo); ok {
		return gate.Box{}, nil // inside an agent's box already: its code, its box
	}
	// A workflow without agents.yaml has no agents whose code the gates
	// would run: its gates run as they always did.
	if _, err := os.Stat(filepath.Join(w.Dir, agents.FileName)); errors.Is(err, os.ErrNotExist) {
		return gate.Box{}, nil
	}
	f, err := agents.Load(filepath.Join(w.Dir, agents.FileName))
	if err != nil {
		return gate.Box{}, err
	}
	if f.Sandbox == agents.SandboxNone {
		return gate.Box{}, nil
	}
	cmds := trust.GateBox(w.Dir, f)
	if err := trust.Check(w.Repo, cmds...); err != nil {
		return gate.Box{}, err
	}
	if err := sandbox.Probe(); err != nil {
		return gate.Box{}, errs.New(errs.User, "agents.yaml asks for sandbox: %s, and %v: burl runs no build or verify command outside its gate box", f.Sandbox, err).
			WithFix("install bubblewrap (Debian: apt-get install bubblewrap) where user namespaces are allowed, or set sandbox: none in agents.yaml and trust it (git burl trust): the project's code then runs unconfined")
	}
	hide, err := sandbox.Hidden(w.Repo.Root, f.Hide, w.Repo.Root, w.Repo.CommonDir, dir)
	if err != nil {
		return gate.Box{}, err
	}
	write := append(sandbox.WritePaths(sandbox.DefaultWrite(), "a language cache (every box)"),
		sandbox.WritePaths(f.Write, "agents.yaml sandbox_write")...)
	argv, err := sandbox.GateArgv(sandbox.GateSpec{Repo: w.Repo, Dir: dir, Write: write, Hide: hide.Paths, Network: f.GateNetwork, See: namedPaths(commands)})
	if err != nil {
		return gate.Box{}, err
	}
	drop := append([]string{"BURL_FORGE_TOKEN"}, hide.Env...)
	return gate.Box{Wrap: argv, Drop: drop, Env: []string{"TMPDIR=/tmp"}, Offline: !f.GateNetwork}, nil
}

// namedPaths are the files a trusted command's words name by absolute
// path that exist here (a build script kept outside the repository): the box must
// see them, read-only, even under /tmp, whose real content it does not
// see otherwise.
func namedPaths(commands []string) []string {
	var out []string
	for _, c := range commands {
		for _, word := range strings.Fields(c) {
			word = strings.Trim(word, `"'`)
			if !filepath.IsAbs(word) {
				continue
			}
			// Files only (a script, a program): a directory named on
			// the command line (-o /tmp) would show the box all of it.
			if fi, err := os.Stat(word); err == nil && fi.Mode().IsRegular() {
				out = append(out, word)
			}
		}
	}
	return out
}
