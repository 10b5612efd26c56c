package runguard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/gitx"
)

// systemPathFile keeps, in burl's state directory, the system config file
// git was built with, under the identity of the git that named it
// (DESIGN §28: a git process fewer at each watch's start). A git upgraded
// or another one first on PATH is another identity, and is asked again.
const systemPathFile = "git-system-config"

// builtinSystemConfig is the system config file git was built with
// (GIT_CONFIG_SYSTEM aside), "" when git does not say. The settings git
// listed from it name it (an include's settings follow the include, which
// is the file's own); else it is what stateDir keeps for this git; else
// git is asked.
func builtinSystemConfig(root, stateDir string, entries []entry) string {
	if _, set := os.LookupEnv(envSystem); !set {
		for _, e := range entries {
			if e.scope == "system" {
				if p, ok := strings.CutPrefix(e.origin, "file:"); ok && filepath.IsAbs(p) {
					return p
				}
				break
			}
		}
	}
	git, id := gitIdentity()
	keep := ""
	if id != "" && filepath.IsAbs(stateDir) {
		keep = filepath.Join(stateDir, systemPathFile)
	}
	if keep != "" {
		if p, ok := keptSystemPath(keep, id); ok {
			return p
		}
	}
	p := askSystemConfig(root, git)
	if keep != "" && p != "" && !strings.Contains(p, "\n") {
		// Best effort: a state directory this process may not write keeps
		// nothing, and the next watch asks git again.
		if os.MkdirAll(stateDir, 0o700) == nil {
			_ = fsx.WriteFile(keep, []byte(id+"\n"+p+"\n"))
		}
	}
	return p
}

// keptSystemPath is the path kept in file for the git of identity id.
func keptSystemPath(file, id string) (string, bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", false
	}
	rest, ok := strings.CutPrefix(string(b), id+"\n")
	p, last := strings.CutSuffix(rest, "\n")
	if !ok || !last || !filepath.IsAbs(p) || strings.Contains(p, "\n") {
		return "", false
	}
	return p, true
}

// gitIdentity is the git burl runs (absolute) and what tells it from
// another or an upgrade: its path, size, modification time and inode
// (id "" where any is unknown: nothing is kept).
func gitIdentity() (git, id string) {
	git = gitx.Program()
	if !filepath.IsAbs(git) {
		p, err := exec.LookPath(git)
		if err != nil {
			return git, ""
		}
		if p, err = filepath.Abs(p); err != nil {
			return git, ""
		}
		git = p
	}
	fi, err := os.Stat(git)
	if err != nil {
		return git, ""
	}
	ino := inode(fileID{fi})
	if ino == "" {
		return git, ""
	}
	return git, strconv.Quote(git) + " " + strconv.FormatInt(fi.Size(), 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10) + " " + ino
}

// askSystemConfig is git's own answer: it names the file without reading
// it when asked to edit it.
func askSystemConfig(root, git string) string {
	cmd := exec.Command(git, "config", "--system", "--edit")
	cmd.Dir = root
	for _, kv := range os.Environ() {
		// Unset, not empty: git reads an empty GIT_CONFIG_SYSTEM as a path.
		if !strings.HasPrefix(kv, envSystem+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GIT_EDITOR=echo")
	out, err := cmd.Output()
	p := strings.TrimSpace(string(out))
	if err != nil || !filepath.IsAbs(p) {
		return ""
	}
	return p
}
