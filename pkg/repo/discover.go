package repo

import (
	"os"
	"path/filepath"
	"strings"
)

// discover finds the repository of dir as `git rev-parse
// --path-format=absolute --git-common-dir --show-toplevel` would, without
// starting git (DESIGN §28: every burl process resolved its repository
// with a git of its own), for the layouts burl makes and meets: dir is in
// a worktree whose .git is the repository's git dir or names a linked
// worktree's git dir inside it. ok is false for anything else (an
// environment that names the repository, a bare or separate git dir, a
// file system boundary on the way up, a folder not the user's), which
// git then resolves.
func discover(dir string) (common, top string, ok bool) {
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"} {
		if _, set := os.LookupEnv(v); set {
			return "", "", false
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", false
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return "", "", false
	}
	dev, ok := devOf(abs)
	if !ok {
		return "", "", false
	}
	for d := abs; ; d = filepath.Dir(d) {
		if dv, ok := devOf(d); !ok || dv != dev {
			return "", "", false
		}
		// A git dir itself (inside .git, a bare repository): git knows.
		if isGitDir(d) {
			return "", "", false
		}
		dot := filepath.Join(d, ".git")
		st, err := os.Lstat(dot)
		switch {
		case err == nil && st.IsDir():
			if !isGitDir(dot) || exists(filepath.Join(dot, "commondir")) {
				return "", "", false
			}
			common = dot
		case err == nil && st.Mode().IsRegular():
			if common, ok = linkedCommon(d, dot); !ok {
				return "", "", false
			}
		case err == nil || !os.IsNotExist(err):
			return "", "", false
		}
		if common != "" {
			if !ownedByMe(d) || !ownedByMe(common) {
				return "", "", false
			}
			return common, d, true
		}
		if d == filepath.Dir(d) {
			return "", "", false
		}
	}
}

// linkedCommon is the common dir of the linked worktree whose .git file
// is dot: "gitdir: <common>/worktrees/<id>", whose commondir leads back.
func linkedCommon(top, dot string) (string, bool) {
	b, err := os.ReadFile(dot)
	if err != nil {
		return "", false
	}
	gd, ok := strings.CutPrefix(strings.TrimRight(string(b), "\n"), "gitdir: ")
	if !ok || strings.ContainsAny(gd, "\n\r") {
		return "", false
	}
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(top, gd)
	}
	if gd, err = filepath.EvalSymlinks(gd); err != nil || !isGitDir(gd) && !exists(filepath.Join(gd, "HEAD")) {
		return "", false
	}
	wts := filepath.Dir(gd)
	common := filepath.Dir(wts)
	if filepath.Base(wts) != "worktrees" || filepath.Base(common) != ".git" || !isGitDir(common) {
		return "", false
	}
	cd, err := os.ReadFile(filepath.Join(gd, "commondir"))
	if err != nil {
		return "", false
	}
	c := strings.TrimSpace(string(cd))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gd, c)
	}
	if c, err = filepath.EvalSymlinks(c); err != nil || c != common {
		return "", false
	}
	return common, true
}

// isGitDir is git's own test of a git dir: HEAD, objects/ and refs/.
func isGitDir(d string) bool {
	return exists(filepath.Join(d, "HEAD")) && isDir(filepath.Join(d, "objects")) && isDir(filepath.Join(d, "refs"))
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
