package bwrapbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/burl-dev/burl/pkg/agents"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/runguard"
)

// DefaultHide is agents.yaml sandbox_hide's default (DESIGN §19): the
// user's push and forge credentials. The stores of the credential helpers
// configured for the repository are added to it (Hidden).
var DefaultHide = []string{
	"~/.ssh", "~/.git-credentials", "~/.config/gh", "~/.config/glab-cli",
	"SSH_AUTH_SOCK", "GH_TOKEN", "GITHUB_TOKEN", "GITLAB_TOKEN", "BURL_FORGE_TOKEN",
	// The agents that sign and unlock for the user (DESIGN §24): the
	// session D-Bus (a keyring, a desktop), gpg-agent's sockets.
	"DBUS_SESSION_BUS_ADDRESS", "~/.gnupg/S.gpg-agent", "~/.gnupg/S.gpg-agent.ssh",
	"~/.gnupg/S.gpg-agent.extra", "~/.gnupg/S.gpg-agent.browser",
}

// runtimeSockets are the session's sockets under $XDG_RUNTIME_DIR that
// the default hides too: the D-Bus session bus and gpg-agent's folder.
func runtimeSockets() []string {
	var out []string
	for _, d := range []string{os.Getenv("XDG_RUNTIME_DIR"), fmt.Sprintf("/run/user/%d", os.Getuid())} {
		if filepath.IsAbs(d) {
			out = append(out, filepath.Join(d, "bus"), filepath.Join(d, "gnupg"))
		}
	}
	if g := os.Getenv("GNUPGHOME"); filepath.IsAbs(g) {
		for _, n := range []string{"S.gpg-agent", "S.gpg-agent.ssh", "S.gpg-agent.extra", "S.gpg-agent.browser"} {
			out = append(out, filepath.Join(g, n))
		}
	}
	return out
}

// socketOf is the socket path an environment variable names: a path
// (SSH_AUTH_SOCK), or D-Bus's unix:path=... address; "" for none.
func socketOf(v string) string {
	if filepath.IsAbs(v) {
		return v
	}
	for _, part := range strings.Split(v, ";") {
		rest, ok := strings.CutPrefix(part, "unix:")
		if !ok {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			if p, ok := strings.CutPrefix(kv, "path="); ok && filepath.IsAbs(p) {
				return p
			}
		}
	}
	return ""
}

// Hide is what of the user's a run must not reach.
type Hide struct {
	// Paths are covered under bubblewrap: a directory by an empty tmpfs, a
	// file or socket by /dev/null.
	Paths []string
	// Env are variables taken out of the agent's environment, with or
	// without a sandbox.
	Env []string
	// LocalRemotes are the remotes whose URL is a path here: bound
	// read-only, so that only burl pushes to them.
	LocalRemotes []string
	// Skipped are entries left visible, each with why.
	Skipped []string
}

// Hidden resolves sandbox_hide's entries (nil: DefaultHide and the stores
// of the configured credential helpers) for the repository whose main
// worktree is root; keep are paths a hidden path must not cover (the
// repository, the task's worktree).
func Hidden(root string, entries []string, keep ...string) (*Hide, error) {
	home, _ := os.UserHomeDir()
	// Read with the repository's bootstrap settings: no git config of
	// its own for every run.
	r, err := repo.Resolve(root)
	if err != nil {
		return nil, err
	}
	var helpers []string
	h := &Hide{}
	for _, kv := range r.CredentialSettings() {
		k, v := kv.Key, kv.Value
		switch {
		case strings.HasPrefix(k, "credential."):
			if v == "" {
				helpers = nil // git's reset of the list
			} else {
				helpers = append(helpers, v)
			}
		case strings.HasPrefix(k, "remote."):
			if p := localRemote(v, root); p != "" {
				h.LocalRemotes = appendNew(h.LocalRemotes, p)
			}
		}
	}
	if entries == nil {
		entries = append(append(append([]string{}, DefaultHide...), helperStores(helpers, home)...), runtimeSockets()...)
		if x := os.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
			entries = append(entries, filepath.Join(x, "gh"), filepath.Join(x, "glab-cli"))
		}
		if d := os.Getenv("GH_CONFIG_DIR"); filepath.IsAbs(d) {
			entries = append(entries, d)
		}
	}
	var keepReal []string
	for _, k := range keep {
		keepReal = append(keepReal, realPath(k))
	}
	h.Env = HiddenEnv(entries)
	for _, e := range entries {
		if agents.EnvName(e) {
			// A variable naming a socket (SSH_AUTH_SOCK) hides the socket.
			if v := socketOf(os.Getenv(e)); v != "" {
				if fi, err := os.Stat(v); err == nil && fi.Mode()&fs.ModeSocket != 0 {
					h.Paths = appendNew(h.Paths, realPath(v))
				}
			}
			continue
		}
		p := e
		if rest, ok := strings.CutPrefix(e, "~/"); ok {
			if home == "" {
				h.Skipped = append(h.Skipped, e+": no HOME")
				continue
			}
			p = filepath.Join(home, rest)
		}
		if _, err := os.Lstat(p); err != nil {
			continue // nothing there to read
		}
		p = realPath(p)
		if k := covers(p, keepReal); k != "" {
			h.Skipped = append(h.Skipped, fmt.Sprintf("%s: it holds %s, which the run needs", e, k))
			continue
		}
		h.Paths = appendNew(h.Paths, p)
	}
	return h, nil
}

// HiddenEnv are the variables sandbox_hide's entries name (nil entries:
// the default's), which agents never get, with or without a sandbox.
func HiddenEnv(entries []string) []string {
	if entries == nil {
		entries = DefaultHide
	}
	var out []string
	for _, e := range entries {
		if agents.EnvName(e) {
			out = appendNew(out, e)
		}
	}
	return out
}

// helperStores are the files and sockets of the store and cache helpers
// among a repository's credential.helper values, as those helpers find
// them: --file / --socket, else their defaults (XDG locations included).
func helperStores(helpers []string, home string) []string {
	xdgCache := os.Getenv("XDG_CACHE_HOME")
	if !filepath.IsAbs(xdgCache) {
		xdgCache = filepath.Join(home, ".cache")
	}
	var out []string
	for _, v := range helpers {
		if strings.HasPrefix(v, "!") {
			continue // a shell snippet: nothing burl can know of
		}
		words := strings.Fields(v)
		if len(words) == 0 {
			continue
		}
		name := strings.TrimPrefix(filepath.Base(words[0]), "git-credential-")
		opt := func(flag string) string {
			for i, w := range words[1:] {
				if s, ok := strings.CutPrefix(w, flag+"="); ok {
					return s
				}
				if w == flag && i+2 < len(words) {
					return words[i+2]
				}
			}
			return ""
		}
		switch name {
		case "store":
			if f := opt("--file"); f != "" {
				out = append(out, homePath(f, home))
			} else {
				out = append(out, filepath.Join(home, ".git-credentials"), filepath.Join(runguard.XDGConfig(home), "git", "credentials"))
			}
		case "cache":
			if s := opt("--socket"); s != "" {
				out = append(out, homePath(s, home))
			} else {
				out = append(out, filepath.Join(home, ".git-credential-cache"), filepath.Join(xdgCache, "git", "credential"))
			}
		}
	}
	return out
}

// homePath is p with ~/ expanded, absolute ("" when it cannot be).
func homePath(p, home string) string {
	p = runguard.ExpandHome(p, home)
	if !filepath.IsAbs(p) {
		return ""
	}
	return p
}

// localRemote is the directory a remote URL names when it is a path on
// this machine ("" for a network URL): file://, an absolute path, or a
// relative one (from the repository root) that exists.
func localRemote(u, root string) string {
	p := u
	switch {
	case strings.HasPrefix(u, "file://"):
		p = strings.TrimPrefix(u, "file://")
	case strings.Contains(u, "://"):
		return ""
	default:
		// scp-like host:path has its colon before any slash.
		if c := strings.IndexByte(u, ':'); c >= 0 && (strings.IndexByte(u, '/') < 0 || c < strings.IndexByte(u, '/')) {
			return ""
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		// git also accepts path.git for path: the one that exists.
		if fi, err := os.Stat(p + ".git"); err == nil && fi.IsDir() {
			p += ".git"
		} else {
			return ""
		}
	}
	return realPath(p)
}

// HideArgs are bubblewrap's arguments hiding p: an empty tmpfs over a
// directory; /dev/null over anything else, so that it reads as empty and
// a socket refuses connections.
func HideArgs(p string) []string {
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return []string{"--tmpfs", p}
	}
	return []string{"--dev-bind", os.DevNull, p}
}

// realPath is p with symlinks resolved where they can be.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// covers names the first of keep that p is or holds ("" when none).
func covers(p string, keep []string) string {
	for _, k := range keep {
		if Within(k, p) {
			return k
		}
	}
	return ""
}

func appendNew(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}
