package repo

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A process resolves its repository once per directory (DESIGN §28):
// watch opens the workflow dozens of times per task, and each Resolve was
// two git processes. What git read is kept with a stamp of every file it
// could have read it from (the repository's, the user's and the system's
// config, and any other file a setting came from), taken before git read
// them; a later Resolve in the same directory and environment is answered
// from it while the stamp is unchanged. Which files those are is known
// once git has been asked: the first Resolve only learns them, the second
// stamps them before it asks. Settings that come through an include are
// read every time: the files an include names are not known without
// asking git.
type cacheEntry struct {
	r     Repo
	files []string
	// stamp is "" until taken before a read (the entry then only names
	// the files).
	stamp string
}

var (
	cacheMu sync.Mutex
	cache   = map[string]cacheEntry{}
)

func cacheKey(dir string) string {
	return dir + "\x00" + strings.Join(os.Environ(), "\x00")
}

// preStamp is a stamp taken before git reads: the files it covers and
// their stamp ("" when none can be trusted).
type preStamp struct {
	files []string
	stamp string
}

// cached is the repository resolved earlier in dir if nothing it was read
// from changed since; else nil and a stamp of the files it was read from,
// taken now, before git reads them again.
func cached(dir string) (*Repo, preStamp) {
	if _, err := os.Stat(dir); dir == "" || err != nil {
		// Resolve says why.
		return nil, preStamp{}
	}
	cacheMu.Lock()
	e, ok := cache[cacheKey(dir)]
	cacheMu.Unlock()
	if !ok {
		return nil, preStamp{}
	}
	st, ok := stampOf(e.files)
	if !ok {
		return nil, preStamp{}
	}
	if e.stamp != "" && st == e.stamp {
		r := e.r
		return &r, preStamp{}
	}
	return nil, preStamp{e.files, st}
}

// remember keeps r, resolved in dir from settings of origins (as git
// config --show-origin names them), with the stamp pre taken before git
// read them when it covers the files they came from, unless a stamp
// cannot vouch for them.
func remember(dir string, r *Repo, origins []string, pre preStamp) {
	files := configFiles(r)
	for _, o := range origins {
		p, ok := strings.CutPrefix(o, "file:")
		switch {
		case o == "include:" || ok && strings.HasPrefix(p, `"`):
			// Files an include names, or a path git quoted.
			cacheMu.Lock()
			delete(cache, cacheKey(dir))
			cacheMu.Unlock()
			return
		case ok && filepath.IsAbs(p) && !slices.Contains(files, p):
			files = append(files, p)
		}
		// A relative path is the repository's own config, stamped already;
		// "command line:" comes from the environment, part of the key.
	}
	stamp := ""
	if slices.Equal(files, pre.files) {
		stamp = pre.stamp
	}
	cacheMu.Lock()
	cache[cacheKey(dir)] = cacheEntry{*r, files, stamp}
	cacheMu.Unlock()
}

// configFiles are the files git config reads for r, set or not (a file
// made later must be seen too): the system's, the user's and the
// repository's, its worktree's config.worktree included.
func configFiles(r *Repo) []string { return configFilesIn(r, os.Getenv) }

// configFilesIn is configFiles in the environment getenv reads.
func configFilesIn(r *Repo, getenv func(string) string) []string {
	var files []string
	if v := getenv("GIT_CONFIG_SYSTEM"); v != "" {
		files = append(files, v)
	} else {
		files = append(files, "/etc/gitconfig")
	}
	if v := getenv("GIT_CONFIG_GLOBAL"); v != "" {
		files = append(files, v)
	} else {
		home := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		xdg := getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if home != "" {
			files = append(files, filepath.Join(home, ".gitconfig"))
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "config"))
		}
	}
	return append(files, repoConfigFiles(r)...)
}

// repoConfigFiles are the repository's own config files of configFiles.
func repoConfigFiles(r *Repo) []string {
	files := []string{filepath.Join(r.CommonDir, "config"), filepath.Join(r.CommonDir, "config.worktree")}
	if r.Toplevel != "" {
		// A linked worktree's .git is a file naming its own git dir.
		if b, err := os.ReadFile(filepath.Join(r.Toplevel, ".git")); err == nil {
			if d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); ok {
				if !filepath.IsAbs(d) {
					d = filepath.Join(r.Toplevel, d)
				}
				files = append(files, filepath.Join(d, "config.worktree"))
			}
		}
	}
	return files
}

// racy is how recent a change to a config file may be for its stamp not
// to be trusted: a later change could leave the same modification time
// (as git's own index does not trust an entry as new as itself). A file
// system that records whole seconds (no nanoseconds) needs two.
const (
	racy       = 50 * time.Millisecond
	racySecond = 2 * time.Second
)

// stampOf is the modification time and size of every file ("-" for one
// that is not there); ok is false when one changed too recently to be
// told from a change to come (racy).
func stampOf(files []string) (string, bool) {
	var b strings.Builder
	now := time.Now()
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			b.WriteString("-\x00")
			continue
		}
		window := racy
		if st.ModTime().Nanosecond() == 0 {
			window = racySecond
		}
		if now.Sub(st.ModTime()) < window {
			return "", false
		}
		b.WriteString(f + " " + st.ModTime().String() + " " + strconv.FormatInt(st.Size(), 10) + "\x00")
	}
	return b.String(), true
}
