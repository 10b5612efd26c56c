package repo

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/burl-dev/burl/pkg/fsx"
)

// Every burl process read the bootstrap settings with a git config of its
// own (DESIGN §28: config read once): what git answered in the main
// worktree is kept in the shared git dir under the content of the files it
// came from and of the environment's config variables, and a later
// process that finds the same content takes it from there. git stays the
// only reader of config files; a change to any of them makes the next
// process ask git again. The content, not a file's time: git rewrites the
// repository's config unchanged on every branch -D (an approve), and a
// content is never too recent to trust. Settings that come through an
// include are never kept.

// bootstrapFile is where the main worktree's answer is kept; "" where
// none is (a linked worktree, a layout git resolved).
func bootstrapFile(d found) string {
	if !d.ok || filepath.Join(d.top, ".git") != d.common {
		return ""
	}
	return filepath.Join(d.common, burlDirName, "bootstrap-config")
}

// bootstrapKey is what a kept answer must match: the digest of every
// config file git reads here (set or not) and the environment's config
// variables, and the keys asked for; "" where nothing is kept.
func bootstrapKey(d found) string { return bootstrapKeyIn(d, os.Environ()) }

// bootstrapKeyIn is bootstrapKey for a git run with environment environ.
func bootstrapKeyIn(d found, environ []string) string {
	if bootstrapFile(d) == "" {
		return ""
	}
	h := sha256.New()
	if !digestFiles(h, configFilesIn(&Repo{CommonDir: d.common, Toplevel: d.top}, getenvIn(environ))) {
		return ""
	}
	var env []string
	for _, kv := range environ {
		if strings.HasPrefix(kv, "GIT_CONFIG") {
			env = append(env, kv)
		}
	}
	slices.Sort(env)
	h.Write([]byte(strings.Join(env, "\x00")))
	// An answer to other keys (an earlier burl's) is no answer.
	h.Write([]byte("\x00" + bootstrapKeys))
	return hex.EncodeToString(h.Sum(nil)) + "\n"
}

// digestFiles writes each file's name and content to h (none where it is
// not there); false when one cannot be read.
func digestFiles(h hash.Hash, files []string) bool {
	for _, f := range files {
		b, err := os.ReadFile(f)
		switch {
		case os.IsNotExist(err):
			b = nil
		case err != nil:
			return false
		}
		h.Write([]byte(f + "\x00" + strconv.Itoa(len(b)) + "\x00"))
		h.Write(b)
	}
	return true
}

// keptBootstrap is git config's answer kept under key.
func keptBootstrap(d found, key string) (string, bool) {
	if key == "" {
		return "", false
	}
	b, err := os.ReadFile(bootstrapFile(d))
	if err != nil {
		return "", false
	}
	return strings.CutPrefix(string(b), key)
}

// keepBootstrap keeps git config's answer out, read while the files had
// the content of key (taken before and after git read them); one with an
// include is not kept.
func keepBootstrap(d found, key, out string) {
	if key == "" || bootstrapKey(d) != key {
		return
	}
	f := bootstrapFile(d)
	for _, l := range strings.Split(out, "\n") {
		_, kv, _ := strings.Cut(l, "\t")
		if strings.HasPrefix(kv, "include.") || strings.HasPrefix(kv, "includeif.") {
			_ = os.Remove(f)
			return
		}
	}
	// Best effort: a git dir this process may not write keeps nothing.
	_ = fsx.WriteFile(f, []byte(key+out))
}

// getenvIn is os.Getenv for environ (its last setting of a name, as
// exec's is).
func getenvIn(environ []string) func(string) string {
	return func(name string) string {
		v := ""
		for _, kv := range environ {
			if k, val, ok := strings.Cut(kv, "="); ok && k == name {
				v = val
			}
		}
		return v
	}
}
