package repo

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/burl-dev/burl/pkg/fsx"
)

// Every burl process read the bootstrap settings with a git config of its
// own (DESIGN §28: config read once): what git answered in the main
// worktree is kept in the shared git dir with the stamp of the files it
// came from, taken before git read them (cache.go), and a later process
// whose stamp is the same takes it from there. git stays the only reader
// of config files; a change to any of them (or to the environment that
// names them) makes the next process ask git again. Settings that come
// through an include are never kept.

// bootstrapFile is where the main worktree's answer is kept; "" where
// none is (a linked worktree, a layout git resolved).
func bootstrapFile(d found) string {
	if !d.ok || filepath.Join(d.top, ".git") != d.common {
		return ""
	}
	return filepath.Join(d.common, burlDirName, "bootstrap-config")
}

// bootstrapKey is what the kept answer must match: the files, their
// stamp, and the environment's config variables.
func bootstrapKey(pre preStamp) string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_CONFIG") {
			env = append(env, kv)
		}
	}
	slices.Sort(env)
	return strings.Join(pre.files, "\x00") + "\x01" + pre.stamp + "\x01" + strings.Join(env, "\x00") + "\x01"
}

// keptBootstrap is git config's answer kept under the stamp pre.
func keptBootstrap(d found, pre preStamp) (string, bool) {
	f := bootstrapFile(d)
	if f == "" || pre.stamp == "" {
		return "", false
	}
	b, err := os.ReadFile(f)
	if err != nil {
		return "", false
	}
	out, ok := strings.CutPrefix(string(b), bootstrapKey(pre))
	return out, ok
}

// keepBootstrap keeps git config's answer out, read after the stamp pre
// was taken; one with an include is not kept.
func keepBootstrap(d found, pre preStamp, out string) {
	f := bootstrapFile(d)
	if f == "" || pre.stamp == "" {
		return
	}
	for _, l := range strings.Split(out, "\n") {
		_, kv, _ := strings.Cut(l, "\t")
		if strings.HasPrefix(kv, "include.") || strings.HasPrefix(kv, "includeif.") {
			_ = os.Remove(f)
			return
		}
	}
	// Best effort: a git dir this process may not write keeps nothing.
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err == nil {
		_ = fsx.WriteFile(f, []byte(bootstrapKey(pre)+out))
	}
}
