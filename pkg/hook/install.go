package hook

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/burl-dev/burl"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/repo"
)

// Marker is a line of every hook file burl writes: how install, uninstall
// and status tell burl's hook from someone else's.
const Marker = "# installed by git-burl hooks install"

// ChainedSuffix names the hook that was in place before burl: install moves
// it to <hook>.burl-chained, burl's shim runs it first (its failure still
// blocks), and uninstall moves it back.
const ChainedSuffix = ".burl-chained"

// Names are the hooks burl installs, in the order it reports them.
var Names = []string{"commit-msg", "pre-push"}

// State is what a hooks directory holds under one hook name.
type State string

// The states status reports.
const (
	Absent    State = "absent"    // no hook
	Installed State = "installed" // burl's shim
	Chained   State = "chained"   // burl's shim, running the hook it replaced first
	Foreign   State = "foreign"   // someone else's hook; burl does not manage it
)

// Status is one hook's state.
type Status struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	State State  `json:"state"`
	// Chained is the moved-aside hook: run first when State is chained,
	// left over from an earlier install otherwise.
	Chained string `json:"chained,omitempty"`
}

// Action is what install or uninstall did to one hook.
type Action struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Did is installed | updated | unchanged | chained (install) or
	// removed | restored | left | absent (uninstall).
	Did     string `json:"did"`
	Chained string `json:"chained,omitempty"` // the hook burl runs first, or the one it restored from
	Kept    string `json:"kept,omitempty"`    // --force: where the previously chained hook was saved
}

// Report is what install or uninstall did, hook by hook.
type Report struct {
	Dir   string   `json:"dir"`
	Hooks []Action `json:"hooks"`
}

// StatusReport is every hook's state.
type StatusReport struct {
	Dir   string   `json:"dir"`
	Hooks []Status `json:"hooks"`
}

// Dir is the hooks directory git reads for the repository at dir:
// core.hooksPath when set (git resolves it against the worktree root),
// else <common dir>/hooks, which every linked worktree shares. Using the
// git dir instead would put hooks where no linked worktree ever looks.
func Dir(dir string) (string, error) {
	if _, err := repo.Resolve(dir); err != nil {
		return "", err
	}
	return gitx.Git{Dir: dir, UserHooks: true}.Run("rev-parse", "--path-format=absolute", "--git-path", "hooks")
}

// Inspect reports the state of every hook burl installs.
func Inspect(dir string) (*StatusReport, error) {
	hd, err := Dir(dir)
	if err != nil {
		return nil, err
	}
	rep := &StatusReport{Dir: hd}
	for _, name := range Names {
		s, err := inspect(hd, name)
		if err != nil {
			return nil, err
		}
		rep.Hooks = append(rep.Hooks, s)
	}
	return rep, nil
}

func inspect(hd, name string) (Status, error) {
	p := filepath.Join(hd, name)
	s := Status{Name: name, Path: p, State: Absent}
	if exists(p + ChainedSuffix) {
		s.Chained = p + ChainedSuffix
	}
	if !exists(p) {
		return s, nil
	}
	switch {
	case !isOurs(p):
		s.State = Foreign
	case s.Chained != "":
		s.State = Chained
	default:
		s.State = Installed
	}
	return s, nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// isOurs looks for the marker line rather than comparing the whole text,
// so a shim written by an older burl is still recognised (and updated).
// Whatever cannot be read is someone else's, so burl never removes it.
func isOurs(p string) bool {
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if sc.Text() == Marker {
			return true
		}
	}
	return false
}

// Install writes burl's shims. A foreign hook is chained, never lost. When a
// foreign hook and a hook chained by an earlier install are both present
// (another tool replaced burl's shim since), install refuses and changes
// nothing unless force is set; force chains the current hook and keeps the
// older chained one, no longer run, as <hook>.burl-chained.<n>.
func Install(dir string, force bool) (*Report, error) {
	hd, err := Dir(dir)
	if err != nil {
		return nil, err
	}
	rep := &Report{Dir: hd}
	var states []Status
	var conflicts []string
	for _, name := range Names {
		s, err := inspect(hd, name)
		if err != nil {
			return nil, err
		}
		if s.State == Foreign && s.Chained != "" && !force {
			conflicts = append(conflicts, fmt.Sprintf("%s is not burl's, and %s, a hook burl chained earlier, is still there", s.Path, s.Chained))
		}
		states = append(states, s)
	}
	if len(conflicts) > 0 {
		return nil, errs.New(errs.User, "%s\n(another tool has probably replaced burl's hook since it was installed)", strings.Join(conflicts, "\n")).
			WithTitle("Cannot install burl's hooks").
			WithFix("look at both files, then either merge them into one hook by hand and run git burl hooks install again, or run git burl hooks install --force to chain the current hook (the older chained one is kept as <hook>%s.1 and no longer runs)", ChainedSuffix)
	}
	if err := os.MkdirAll(hd, 0o755); err != nil {
		return nil, err
	}
	for _, s := range states {
		a, err := install(s)
		if err != nil {
			return rep, err
		}
		rep.Hooks = append(rep.Hooks, a)
	}
	return rep, nil
}

func install(s Status) (Action, error) {
	shim, err := burl.Hooks.ReadFile("hooks/" + s.Name)
	if err != nil {
		return Action{}, err
	}
	a := Action{Name: s.Name, Path: s.Path, Chained: s.Chained}
	switch s.State {
	case Installed, Chained:
		if cur, err := os.ReadFile(s.Path); err == nil && bytes.Equal(cur, shim) {
			a.Did = "unchanged"
			return a, os.Chmod(s.Path, 0o755)
		}
		a.Did = "updated"
	case Absent:
		a.Did = "installed"
	case Foreign:
		if s.Chained != "" {
			if a.Kept, err = keepOldChained(s.Chained); err != nil {
				return a, err
			}
		}
		a.Chained = s.Path + ChainedSuffix
		// A rename keeps the hook's bytes and mode exactly, for uninstall.
		if err := os.Rename(s.Path, a.Chained); err != nil {
			return a, err
		}
		a.Did = "chained"
	}
	if err := fsx.WriteFile(s.Path, shim); err != nil {
		return a, err
	}
	// A new file comes out 0600; git only runs an executable hook.
	return a, os.Chmod(s.Path, 0o755)
}

// keepOldChained moves a previously chained hook to the first free
// <path>.<n>, so --force never deletes a hook.
func keepOldChained(p string) (string, error) {
	for n := 1; ; n++ {
		dst := p + "." + strconv.Itoa(n)
		if exists(dst) {
			continue
		}
		return dst, os.Rename(p, dst)
	}
}

// Uninstall removes burl's shims and moves each chained hook back where it
// was, byte for byte and with its mode. A hook that is not burl's is left
// alone.
func Uninstall(dir string) (*Report, error) {
	hd, err := Dir(dir)
	if err != nil {
		return nil, err
	}
	rep := &Report{Dir: hd}
	for _, name := range Names {
		s, err := inspect(hd, name)
		if err != nil {
			return nil, err
		}
		a := Action{Name: name, Path: s.Path, Did: string(Absent)}
		switch s.State {
		case Foreign:
			a.Did, a.Chained = "left", s.Chained
			rep.Hooks = append(rep.Hooks, a)
			continue
		case Installed, Chained:
			if err := os.Remove(s.Path); err != nil {
				return rep, err
			}
			a.Did = "removed"
		}
		// Also when burl's shim was deleted by hand: the chained hook is
		// the user's, and its place is back under its own name.
		if s.Chained != "" {
			if err := os.Rename(s.Chained, s.Path); err != nil {
				return rep, err
			}
			a.Did, a.Chained = "restored", s.Chained
		}
		rep.Hooks = append(rep.Hooks, a)
	}
	return rep, nil
}

// Refresh rewrites, in the hooks directory hd, burl's shims that an older
// burl installed (marker present, text different) with the current ones,
// and touches nothing else. Shims from before libexec/burl exec git-burl-hook from PATH, where
// it no longer is: they would skip every check. Errors leave a hook as it
// was; the next refresh or `git burl hooks install` tries again.
func Refresh(hd string) []Action {
	// hd is repo.HooksDir: where git runs hooks, from the settings the
	// caller already read, without a process of its own.
	var did []Action
	for _, name := range Names {
		s, err := inspect(hd, name)
		if err != nil || (s.State != Installed && s.State != Chained) {
			continue
		}
		if a, err := install(s); err == nil && a.Did == "updated" {
			did = append(did, a)
		}
	}
	return did
}
