package repo

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"strings"

	"github.com/burl-dev/burl/pkg/fsx"
)

// OriginSetting is one setting git reads, with its origin as `git config
// --show-origin` names it ("file:PATH", "command line:").
type OriginSetting struct {
	Origin, Key, Value string
	// NoValue is a key alone: git's implicit true, listed without a value.
	NoValue bool
}

var bootstrapRE = regexp.MustCompile(bootstrapKeys)

// SeedBootstrap keeps the bootstrap settings for a process about to run
// its git under other config variables, which it read the settings for
// itself (watch pins the configuration, DESIGN §19): its next Resolve,
// and every burl it starts, then asks no git for what it just read
// (DESIGN §28). Call it in dir before the settings are read; call what it
// returns with that environment and every setting git would read under it
// in dir, in git's order, once the files the environment names are
// written. What is kept is what `git config --show-origin --get-regexp`
// would print there, byte for byte; where that is not certain (an include,
// an origin git would quote, a value over lines, a repository config that
// changed while the settings were read, a layout whose answer is never
// kept) nothing is, and git is asked as before.
func SeedBootstrap(dir string) func(environ []string, settings []OriginSetting) {
	d := found{}
	d.common, d.top, d.ok = discover(dir)
	before := repoConfigDigest(d)
	return func(environ []string, settings []OriginSetting) {
		// GIT_CONFIG makes git config read that file alone.
		if before == "" || slices.ContainsFunc(environ, func(kv string) bool { return strings.HasPrefix(kv, "GIT_CONFIG=") }) {
			return
		}
		out, ok := bootstrapAnswer(settings)
		if !ok {
			return
		}
		key := bootstrapKeyIn(d, environ)
		// The repository's config as it was when the settings were read
		// (before them) and when key took it.
		if key == "" || repoConfigDigest(d) != before {
			return
		}
		_ = fsx.WriteFile(bootstrapFile(d), []byte(key+out))
	}
}

// bootstrapAnswer is the output of `git config --show-origin --get-regexp
// bootstrapKeys` for settings, as resolve keeps it (trimmed); ok is false
// where it might not be git's.
func bootstrapAnswer(settings []OriginSetting) (string, bool) {
	var b strings.Builder
	for _, s := range settings {
		if !text(s.Key, false) {
			return "", false
		}
		if !bootstrapRE.MatchString(s.Key) {
			continue
		}
		path, isFile := strings.CutPrefix(s.Origin, "file:")
		switch {
		case strings.HasPrefix(s.Key, "include.") || strings.HasPrefix(s.Key, "includeif."):
			// Its settings come from a file it names (keepBootstrap).
			return "", false
		case s.Origin != "command line:" && (!isFile || !printable(path)):
			// git quotes such a path, or it is no file.
			return "", false
		case !text(s.Value, true):
			return "", false
		}
		b.WriteString(s.Origin + "\t" + s.Key)
		if !s.NoValue {
			b.WriteString(" " + s.Value)
		}
		b.WriteByte('\n')
	}
	return strings.TrimSpace(b.String()), true
}

// text: no control character (but a tab where tab): git prints a key or
// a value as it is, and a key above ASCII matches bootstrapKeys here as
// in git (each "." one byte there, one rune here).
func text(s string, tab bool) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && !(tab && r == '\t') || r == 0x7f })
}

// printable: printable ASCII alone, but '"' and '\\': a path git prints
// unquoted whatever core.quotePath says.
func printable(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r >= 0x7f || r == '"' || r == '\\' })
}

// repoConfigDigest is the content of the repository's own config files
// ("" when one cannot be read).
func repoConfigDigest(d found) string {
	h := sha256.New()
	if !d.ok || !digestFiles(h, repoConfigFiles(&Repo{CommonDir: d.common, Toplevel: d.top})) {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
