package bwrapbox

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/repo"
)

// Box is one sandbox as bubblewrap makes it (DESIGN §24): agents,
// reviewers and gates are all described by one, and each path in it says
// why it is there. The whole file system is read-only in it, except the
// paths written with Write; it has a private /tmp of its own, into which
// what the run must see under the real /tmp is bound back at its own path;
// Hide covers what it must not read; it has its own user and PID
// namespaces always, and no network unless Network.
type Box struct {
	mounts []mount
	// Network keeps the network (agents, reviewers; a gate only with
	// gate_network: true).
	Network bool
}

// The kinds of mount of a Box, in the order bubblewrap gets them when
// two fall on one path: a read-only one over a writable one.
const (
	kindSee = iota // visible, read-only unless written
	kindWrite
	kindRead
	kindFile // a file of burl's bound read-only over another path
	kindHide
	kindTmp // a private tmpfs above what is bound back under /tmp
)

type mount struct {
	path, src, why string
	kind           int
}

// Path is one path of a box and why it is there.
type Path struct {
	Path string `json:"path"`
	Why  string `json:"why"`
	// Mode is write, read, file or hide.
	Mode string `json:"mode"`
}

// Write makes p writable in the box (when it exists).
func (b *Box) Write(p, why string) { b.add(mount{path: p, why: why, kind: kindWrite}) }

// See makes p visible in the box, read-only unless Write names it or
// what holds it: a path under /tmp is bound back into the box's private
// /tmp (HOME, PATH, the agent's program).
func (b *Box) See(p, why string) { b.add(mount{path: p, why: why, kind: kindSee}) }

// Read makes p visible and read-only in the box: a path under /tmp is
// bound back into the box's private /tmp, and a path inside a writable
// one is made read-only again.
func (b *Box) Read(p, why string) { b.add(mount{path: p, why: why, kind: kindRead}) }

// File binds burl's file src read-only at p.
func (b *Box) File(src, p, why string) { b.add(mount{path: p, src: src, why: why, kind: kindFile}) }

// Hide covers p: a directory by an empty tmpfs, anything else by
// /dev/null (a socket then refuses connections).
func (b *Box) Hide(p, why string) { b.add(mount{path: p, why: why, kind: kindHide}) }

func (b *Box) add(m mount) {
	if m.path == "" || !filepath.IsAbs(m.path) {
		return
	}
	m.path = filepath.Clean(m.path)
	for _, o := range b.mounts {
		if o.path == m.path && o.kind == m.kind && o.src == m.src {
			return
		}
	}
	b.mounts = append(b.mounts, m)
}

// Clone is a copy of b that can grow apart from it.
func (b *Box) Clone() *Box {
	c := *b
	c.mounts = append([]mount(nil), b.mounts...)
	return &c
}

// Paths are the box's paths and why each is there, in the order they are
// mounted.
func (b *Box) Paths() []Path {
	names := []string{"see", "write", "read", "file", "hide", "tmp"}
	var out []Path
	for _, m := range b.ordered() {
		out = append(out, Path{Path: m.path, Why: m.why, Mode: names[m.kind]})
	}
	return out
}

// Writable are the paths a run in the box can write, outside its
// private /tmp.
func (b *Box) Writable() []string {
	var out []string
	for _, m := range b.mounts {
		if m.kind == kindWrite {
			out = append(out, m.path)
		}
	}
	return out
}

// Writes reports whether a run in the box can write p (or what it links
// to) where burl sees it: the last mount over p decides, as it does in
// bubblewrap (ordered: deeper paths after shallower, burl's files and
// the hidden last); outside every mount the file system is read-only and
// /tmp private.
func (b *Box) Writes(p string) bool {
	cands := []string{filepath.Clean(p)}
	if r, err := filepath.EvalSymlinks(p); err == nil && r != cands[0] {
		cands = append(cands, r)
	}
	ms := b.ordered()
	for _, c := range cands {
		kind := -1
		for _, m := range ms {
			if Within(c, m.path) {
				kind = m.kind
			}
		}
		if kind == kindWrite {
			return true
		}
	}
	return false
}

// base is what every box starts from: a user namespace it cannot nest
// (so it cannot undo a mount), no capabilities (bwrap keeps them for root
// otherwise), a PID namespace with its own /proc (it sees and signals
// only its own processes), a new session (no terminal to push input
// into), death with watch; the whole file system read-only, a /dev of its
// own, a private /tmp.
var base = []string{"--unshare-user", "--disable-userns", "--unshare-pid", "--new-session",
	"--die-with-parent", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
	"--tmpfs", "/tmp"}

// ordered is the mounts in the order bubblewrap must make them: a path
// before what lies below it (so that a writable worktree inside the
// read-only repository stays writable, and the repository inside a
// writable sandbox_write path stays read-only), then burl's files, then
// what is hidden; with a mount point of its own for each directory above
// a read-only path that lies inside a writable one, so that it cannot be
// renamed aside and replaced by one the run made.
func (b *Box) ordered() []mount {
	var tree, files, hides []mount
	var writable []string
	for _, m := range b.mounts {
		if m.kind == kindWrite {
			writable = append(writable, m.path)
		}
	}
	seen := map[string]bool{}
	for _, m := range b.mounts {
		if _, err := os.Lstat(pick(m.src, m.path)); err != nil {
			continue // nothing there: nothing to mount
		}
		switch m.kind {
		case kindFile:
			files = append(files, m)
		case kindHide:
			hides = append(hides, m)
		case kindSee:
			if !Within(m.path, "/tmp") {
				continue // visible already
			}
			tree = append(tree, m)
		case kindRead:
			if !Within(m.path, "/tmp") && !insideAny(m.path, writable) {
				continue // read-only already, as the whole file system is
			}
			for a := filepath.Dir(m.path); a != filepath.Dir(a); a = filepath.Dir(a) {
				if !seen[a] && insideAny(a, writable) && osx.CanRename(a) {
					seen[a] = true
					tree = append(tree, mount{path: a, kind: kindWrite, why: "above " + m.path + ", inside a writable path: a mount point, so that it cannot be renamed aside"})
				}
			}
			tree = append(tree, m)
		default:
			tree = append(tree, m)
		}
	}
	tree = append(tree, tmpAncestors(tree)...)
	sort.SliceStable(tree, func(i, j int) bool {
		di, dj := depth(tree[i].path), depth(tree[j].path)
		if di != dj {
			return di < dj
		}
		return tree[i].kind < tree[j].kind
	})
	return append(append(tree, files...), hides...)
}

// tmpAncestors are the directories between /tmp and what is bound back
// under it, each an empty tmpfs of its own: private as /tmp is, and a
// mount point, so that the run cannot rename the repository's folder
// aside even in its own view.
func tmpAncestors(tree []mount) []mount {
	var paths []string
	for _, m := range tree {
		paths = append(paths, m.path)
	}
	seen := map[string]bool{}
	var out []mount
	for _, m := range tree {
		if !Within(m.path, "/tmp") {
			continue
		}
		var chain []string
		for a := filepath.Dir(m.path); a != "/tmp" && a != "/" && a != "."; a = filepath.Dir(a) {
			chain = append(chain, a)
		}
	walk:
		for i := len(chain) - 1; i >= 0; i-- {
			a := chain[i]
			for _, p := range paths {
				if Within(a, p) {
					break walk // inside what is bound: its own content
				}
			}
			if !seen[a] {
				seen[a] = true
				out = append(out, mount{path: a, kind: kindTmp, why: "between /tmp and " + m.path + ": private, and a mount point, so that it cannot be renamed aside"})
			}
		}
	}
	return out
}

func pick(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func depth(p string) int { return strings.Count(filepath.Clean(p), string(filepath.Separator)) }

func insideAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if Within(p, d) {
			return true
		}
	}
	return false
}

// Args are bubblewrap's arguments for the box, up to and without "--".
func (b *Box) Args() []string {
	out := append([]string{}, base...)
	if !b.Network {
		out = append(out, "--unshare-net")
	}
	for _, m := range b.ordered() {
		switch m.kind {
		case kindWrite:
			out = append(out, "--bind", m.path, m.path)
		case kindRead, kindSee:
			out = append(out, "--ro-bind", m.path, m.path)
		case kindFile:
			out = append(out, "--ro-bind", m.src, m.path)
		case kindHide:
			out = append(out, HideArgs(m.path)...)
		case kindTmp:
			out = append(out, "--tmpfs", m.path)
		}
	}
	return out
}

// Argv is argv run in the box, started in dir, by the bubblewrap at bin.
func (b *Box) Argv(bin, dir string, argv []string) []string {
	out := append([]string{bin}, b.Args()...)
	out = append(out, "--chdir", dir, "--")
	return append(out, argv...)
}

// AgentBox is the part of a box that every run of an agent shares:
// write writable (sandbox_write, its preset's paths, the language
// caches); HOME, the directories on PATH, burl's own and see (the agent's
// program) visible and read-only, bound back where they lie under /tmp.
func AgentBox(write []Path, see ...string) *Box {
	b := &Box{Network: true}
	if home, err := os.UserHomeDir(); err == nil {
		b.See(home, "HOME: read-only, so that nothing the user's shell or tools start later is the run's (start-up files, XDG config, ~/.local/bin)")
	}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		b.See(d, "a directory on PATH: read-only, so that no run puts a program where burl or the user looks one up")
	}
	if exe, err := os.Executable(); err == nil {
		b.See(filepath.Dir(exe), "burl's install directory: read-only")
	}
	for _, p := range see {
		b.See(p, "what the run must see")
	}
	for _, w := range write {
		b.Write(w.Path, w.Why)
	}
	return b
}

// Env is a run's environment in a box: $TMPDIR is the box's private
// /tmp, whatever the user's names.
func Env(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "TMPDIR=/tmp")
}

// GateSpec is where a gate runs (DESIGN §24): build_command, a task's
// verify, worktree_setup.command.
type GateSpec struct {
	Repo *repo.Repo
	// Dir is the checkout under test, writable.
	Dir string
	// Write is sandbox_write (the file's, for every gate) and the
	// language caches.
	Write []Path
	// Hide is what of the user's it must not read (sandbox_hide).
	Hide []string
	// Network is gate_network: true.
	Network bool
	// See are the programs and files the trusted commands name by
	// absolute path: read-only, bound back when they live under /tmp.
	See []string
}

// GateArgv is bubblewrap's argv, up to and with "--", that runs a gate
// in its box: the checkout under test and spec.Write writable, the rest of
// the file system read-only (the repository's .git, its hooks included,
// and the checkout's .git file too), a private /tmp, spec.Hide hidden,
// its own PID namespace (nothing it starts outlives it), no network
// unless spec.Network.
func GateArgv(spec GateSpec) ([]string, error) {
	bin, err := BwrapProgram()
	if err != nil {
		return nil, err
	}
	b := AgentBox(spec.Write, spec.See...)
	b.Network = spec.Network
	r := spec.Repo
	if filepath.Clean(spec.Dir) != filepath.Clean(r.Root) {
		b.Read(r.Root, "the shared repository: only burl writes it")
	}
	b.Read(r.CommonDir, "the shared git dir, its hooks and config: only burl writes them")
	b.Write(spec.Dir, "the checkout under test: the build's output")
	b.Read(filepath.Join(spec.Dir, ".git"), "the checkout's .git: names the git dir burl works in after the gate")
	for _, p := range spec.Hide {
		b.Hide(p, "sandbox_hide: the user's credentials")
	}
	out := append([]string{bin}, b.Args()...)
	return append(out, "--chdir", spec.Dir, "--"), nil
}
