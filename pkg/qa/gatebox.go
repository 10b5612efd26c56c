package qa

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/bwrapbox"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/sandbox"
	"github.com/burl-dev/burl/pkg/trust"
	"github.com/burl-dev/burl/pkg/workflow"
)

// GateBox is where build_command, a task's verify and worktree_setup's
// command run in the checkout dir (DESIGN §24): the project's code is
// agent code wherever burl runs it, by watch or by hand, agents.yaml or
// not. sandbox: none (agents.yaml's, or config.yaml's for the gates
// alone; trusted) runs them as they are. Where bubblewrap cannot run, a
// project that confines agents (agents.yaml, whose sandbox: auto or bwrap
// refuses to start agents there) or asks for sandbox: bwrap in
// config.yaml has its gates refused, naming both ways out; any other runs
// them unconfined, saying so once. sandbox_write (either file) is what the
// box may write besides the checkout and the language caches,
// sandbox_hide (agents.yaml's, else the default) what it must not read,
// gate_network: true (either file, trusted) the network.
func GateBox(w *workflow.Workflow, dir string, commands ...string) (gate.Box, error) {
	if _, ok := sandbox.Active(w.Repo); ok {
		return gate.Box{}, nil // inside an agent's box already: its code, its box
	}
	s, err := gateSettings(w)
	if err != nil {
		return gate.Box{}, err
	}
	// sandbox: none and what widens the box count only once trusted.
	if err := trust.Check(w.Repo, s.trust...); err != nil || s.off {
		return gate.Box{}, err
	}
	if err := sandbox.Probe(); err != nil {
		if !s.required {
			unconfinedOnce.Do(func() {
				fmt.Fprintf(w.Stderr, "burl: note: build and verify commands run unconfined: %v (install bubblewrap for their gate box, or set sandbox: bwrap in config.yaml to refuse them without it)\n", err)
			})
			return gate.Box{}, nil
		}
		return gate.Box{}, errs.New(errs.User, "%s asks for sandbox: %s, and %v: burl runs no build or verify command outside its gate box", s.from, s.mode, err).
			WithFix("install bubblewrap (Debian: apt-get install bubblewrap) where user namespaces are allowed, or set sandbox: none in %s and trust it (git burl trust): the project's code then runs unconfined", s.from)
	}
	hide, err := bwrapbox.Hidden(w.Repo.Root, s.hide, w.Repo.Root, w.Repo.CommonDir, dir)
	if err != nil {
		return gate.Box{}, err
	}
	argv, err := bwrapbox.GateArgv(bwrapbox.GateSpec{Repo: w.Repo, Dir: dir, Write: s.write, Hide: hide.Paths, Network: s.network, See: namedPaths(commands)})
	if err != nil {
		return gate.Box{}, err
	}
	drop := append([]string{"BURL_FORGE_TOKEN"}, hide.Env...)
	return gate.Box{Wrap: argv, Drop: drop, Env: []string{"TMPDIR=/tmp"}, Offline: !s.network}, nil
}

var unconfinedOnce sync.Once

// gateBoxSettings are the gate box as agents.yaml and config.yaml
// together describe it.
type gateBoxSettings struct {
	off      bool // sandbox: none in either file
	required bool // no gate runs where bubblewrap cannot
	mode     string
	from     string // the file that requires the box
	network  bool
	write    []bwrapbox.Path
	hide     []string // nil: sandbox.DefaultHide
	trust    []trust.Command
}

func gateSettings(w *workflow.Workflow) (gateBoxSettings, error) {
	c := w.Config.Gate
	s := gateBoxSettings{
		off: c.Sandbox == agents.SandboxNone, network: c.Network, trust: w.GateBoxCommands(),
		write: append(bwrapbox.WritePaths(bwrapbox.DefaultWrite(), "a language cache (every box)"),
			bwrapbox.WritePaths(c.Write, "config.yaml sandbox_write")...),
	}
	if c.Sandbox == agents.SandboxBwrap {
		s.required, s.mode, s.from = true, c.Sandbox, workflow.ConfigName
	}
	p := filepath.Join(w.Dir, agents.FileName)
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	f, err := agents.Load(p)
	if err != nil {
		return s, err
	}
	if f.Sandbox == agents.SandboxNone {
		s.off = true
		s.trust = append(s.trust, trust.Command{File: agents.FileName, Key: "sandbox", Text: agents.SandboxNone, Path: p})
		return s, nil
	}
	s.required, s.mode, s.from = true, f.Sandbox, agents.FileName
	s.network = s.network || f.GateNetwork
	s.write = append(s.write, bwrapbox.WritePaths(f.Write, "agents.yaml sandbox_write")...)
	s.hide = f.Hide
	s.trust = append(s.trust, trust.GateBox(w.Dir, f)...)
	return s, nil
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
