package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
)

// Guard is what a run must leave as it found it, recorded before the run
// (DESIGN §16): the repository's git config (but for branch.* sections,
// which claims and approves write), the hooks directory git uses, and
// .git/info/ (but for exclude, which worktree_setup appends to). Other
// tasks' worktrees and the refs watch itself moves meanwhile cannot be
// told from a run's doing without the sandbox, which protects them.
type Guard struct {
	config     string
	configText string // the config file as it was, to put back
	files      map[string][]byte
	dirs       []string
	workflow   gitx.Git
}

// Record takes the Guard of the repository whose main worktree is root,
// shared git dir commonDir, and workflow worktree workflowWT.
func Record(root, commonDir, workflowWT string) (*Guard, error) {
	g := &Guard{config: filepath.Join(commonDir, "config"), files: map[string][]byte{}, workflow: gitx.Git{Dir: workflowWT, OwnRepo: true}}
	data, err := os.ReadFile(g.config)
	if err != nil {
		return nil, err
	}
	g.configText = string(data)
	hooks, err := gitx.Git{Dir: root, UserHooks: true}.Run("rev-parse", "--path-format=absolute", "--git-path", "hooks")
	if err != nil {
		return nil, err
	}
	g.dirs = []string{hooks, filepath.Join(commonDir, "info")}
	for _, d := range g.dirs {
		for p, b := range readDir(d) {
			g.files[p] = b
		}
	}
	return g, nil
}

// readDir is every regular file under d (its hooks are small) by path.
func readDir(d string) map[string][]byte {
	out := map[string][]byte{}
	_ = filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Base(p) == "exclude" && filepath.Base(filepath.Dir(p)) == "info" {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil {
			out[p] = b
		}
		return nil
	})
	return out
}

// Changes names what differs from the record, and puts back what it can
// exactly (the config file, hooks and info files: their bytes are kept)
// plus any uncommitted change in the workflow worktree, which only a
// transition under the workflow lock may make; the caller holds that lock.
// undone is false when something could not be put back.
func (g *Guard) Changes() (changes []string, undone bool) {
	undone = true
	if data, err := os.ReadFile(g.config); err != nil || string(data) != g.configText {
		if diff := configDiff(g.configText, string(data)); len(diff) > 0 {
			changes = append(changes, fmt.Sprintf("%s: %s", g.config, strings.Join(diff, ", ")))
			if os.WriteFile(g.config, []byte(g.configText), 0o644) != nil {
				undone = false
			}
		}
	}
	now := map[string][]byte{}
	for _, d := range g.dirs {
		for p, b := range readDir(d) {
			now[p] = b
		}
	}
	var paths []string
	for p := range now {
		paths = append(paths, p)
	}
	for p := range g.files {
		if _, ok := now[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		was, had := g.files[p]
		is, has := now[p]
		switch {
		case had && has && bytes.Equal(was, is):
			continue
		case !had:
			changes = append(changes, p+" added")
			if os.Remove(p) != nil {
				undone = false
			}
		case !has:
			changes = append(changes, p+" removed")
			if os.WriteFile(p, was, 0o755) != nil {
				undone = false
			}
		default:
			changes = append(changes, p+" changed")
			if os.WriteFile(p, was, 0o755) != nil {
				undone = false
			}
		}
	}
	// Raw output: the first entry may start with a space (XY is " M").
	if raw, err := g.workflow.RunInput(nil, "status", "--porcelain", "-z", "--untracked-files=all"); err == nil && len(raw) > 0 {
		for _, e := range strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00") {
			if len(e) > 3 {
				changes = append(changes, filepath.Join(g.workflow.Dir, filepath.FromSlash(e[3:]))+" edited")
			}
		}
		if _, err := g.workflow.Run("checkout", "-q", "HEAD", "--", "."); err != nil {
			undone = false
		}
		if _, err := g.workflow.Run("clean", "-q", "-f", "-d"); err != nil {
			undone = false
		}
	}
	return changes, undone
}

// configDiff names the settings that differ between two texts of a git
// config file, leaving out branch.* (claims and approves set upstreams).
func configDiff(was, is string) []string {
	a, b := configLines(was), configLines(is)
	var out []string
	for k, v := range b {
		if a[k] != v {
			out = append(out, k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k+" (removed)")
		}
	}
	sort.Strings(out)
	return out
}

// configLines reads a git config text as section.key -> values, naively
// but enough to tell one text from another: [section "sub"] headers and
// key = value lines.
func configLines(text string) map[string]string {
	out := map[string]string{}
	section := ""
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, ";"):
		case strings.HasPrefix(l, "["):
			section = strings.ToLower(strings.Trim(strings.ReplaceAll(strings.Trim(l, "[]"), "\"", ""), " "))
			section = strings.ReplaceAll(section, " ", ".")
		default:
			if strings.HasPrefix(section, "branch.") {
				continue
			}
			k, v, _ := strings.Cut(l, "=")
			key := section + "." + strings.ToLower(strings.TrimSpace(k))
			out[key] += strings.TrimSpace(v) + "\n"
		}
	}
	return out
}
