package runguard

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/repo"
)

// Pin is the git configuration burl's own git runs with while a watch
// lives (DESIGN §19): the system and global config as git read them for
// this repository when the watcher started, flattened (includes and
// includeIf evaluated then) into a file of a directory only burl uses,
// with core.attributesFile and core.excludesFile pointing at copies of
// what they named. An agent keeps writing the user's real files (HOME is
// its own); a change there never reaches burl's git, and after each run
// Changes names it and puts the files back.
type Pin struct {
	// Dir is burl's private directory (0700): hidden from a sandboxed run,
	// checked and rewritten after an unconfined one.
	Dir     string
	dirID   fileID
	files   map[string][]byte // what Dir holds, by name
	sources []source
	// orig is the environment's own value of each pinned variable, which
	// agents get back (nil: unset).
	orig map[string]*string
}

// source is one file the pinned configuration was made from, as it was.
type source struct {
	path    string
	data    []byte
	exists  bool
	symlink bool
	mode    fs.FileMode
}

// The variables by which burl's processes read the pinned configuration.
const (
	envGlobal      = "GIT_CONFIG_GLOBAL"
	envNoSystem    = "GIT_CONFIG_NOSYSTEM"
	envAttrNoSys   = "GIT_ATTR_NOSYSTEM"
	envSystem      = "GIT_CONFIG_SYSTEM"
	pinnedConfig   = "gitconfig"
	pinnedAttrs    = "attributes"
	pinnedExcludes = "ignore"
)

var pinnedVars = []string{envGlobal, envNoSystem, envAttrNoSys}

// entry is one setting of `git config --list`.
type entry struct {
	scope, origin, key, value string
	implicit                  bool // "key" alone: a boolean true
}

// PinGitConfig flattens the configuration git reads in the repository
// whose main worktree is root into a new private directory. stateDir is
// burl's state directory, where the system config's path is kept
// (syspath.go; "" keeps nothing).
func PinGitConfig(root, stateDir string) (*Pin, error) {
	p := &Pin{files: map[string][]byte{}, orig: map[string]*string{}}
	for _, k := range append(pinnedVars, envSystem) {
		if v, ok := os.LookupEnv(k); ok {
			p.orig[k] = &v
		}
	}
	seed := repo.SeedBootstrap(root)
	entries, err := listConfig(root)
	if err != nil {
		return nil, err
	}
	paths := map[string]bool{}
	watch := func(path string) {
		if path != "" && !paths[path] {
			paths[path] = true
			p.sources = append(p.sources, readSource(path))
		}
	}
	home, _ := os.UserHomeDir()
	for _, f := range globalFiles(home) {
		watch(f)
	}
	builtin, asked := "", false
	builtinSystem := func() string {
		if !asked {
			builtin, asked = builtinSystemConfig(root, stateDir, entries), true
		}
		return builtin
	}
	if !gitBool(os.Getenv(envNoSystem)) {
		// The one in effect.
		if v, ok := os.LookupEnv(envSystem); ok {
			watch(v)
		} else {
			watch(builtinSystem())
		}
	}
	var kept []entry
	attrs, excludes := "", ""
	for _, e := range entries {
		if e.scope != "system" && e.scope != "global" {
			continue
		}
		from, isFile := strings.CutPrefix(e.origin, "file:")
		if isFile {
			if !filepath.IsAbs(from) {
				from = filepath.Join(root, from)
			}
			watch(from)
		}
		if e.key == "include.path" || strings.HasPrefix(e.key, "includeif.") && strings.HasSuffix(e.key, ".path") {
			// Read already (its settings follow it); a file it names that
			// does not exist yet would be read once created.
			if isFile {
				watch(includeTarget(e.value, filepath.Dir(from), home))
			}
			continue
		}
		switch e.key {
		case "core.attributesfile":
			attrs = e.value
		case "core.excludesfile":
			excludes = e.value
		}
		kept = append(kept, e)
	}
	xdg := XDGConfig(home)
	attrs, excludes = ExpandHome(attrs, home), ExpandHome(excludes, home)
	if attrs == "" {
		attrs = filepath.Join(xdg, "git", "attributes")
	}
	if excludes == "" {
		excludes = filepath.Join(xdg, "git", "ignore")
	}
	var attrText []byte
	if os.Getenv(envAttrNoSys) == "" {
		// The system attributes file sits beside the system config git
		// was built with; burl's git reads it from the pinned copy.
		if def := builtinSystem(); def != "" {
			sa := filepath.Join(filepath.Dir(def), "gitattributes")
			watch(sa)
			attrText = append(attrText, fileBytes(sa)...)
			attrText = append(attrText, '\n')
		}
	}
	watch(attrs)
	watch(excludes)
	attrText = append(attrText, fileBytes(attrs)...)

	dir, err := os.MkdirTemp("", "burl-git-")
	if err != nil {
		return nil, err
	}
	p.Dir = dir
	var cfg bytes.Buffer
	writeConfig(&cfg, kept)
	fmt.Fprintf(&cfg, "[core]\n\tattributesFile = %s\n\texcludesFile = %s\n",
		quoteValue(filepath.Join(dir, pinnedAttrs)), quoteValue(filepath.Join(dir, pinnedExcludes)))
	p.files[pinnedConfig] = cfg.Bytes()
	p.files[pinnedAttrs] = attrText
	p.files[pinnedExcludes] = fileBytes(excludes)
	if err := p.write(); err != nil {
		p.Close()
		return nil, err
	}
	if settings, ok := p.settings(kept, entries); ok {
		seed(p.environ(), settings)
	}
	return p, nil
}

// environ is this process's environment once Setenv has run.
func (p *Pin) environ() []string {
	env := p.Env()
	out := os.Environ()[:0:0]
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(env, func(s string) bool { return strings.HasPrefix(s, k+"=") }) {
			out = append(out, kv)
		}
	}
	return append(out, env...)
}

// settings are what git reads in the repository under the pinned
// configuration, in its order: the pinned file's (kept as writeConfig
// wrote them, then the two files it points at), then the repository's
// and the command line's as they were listed. ok is false when a setting
// came from elsewhere.
func (p *Pin) settings(kept, entries []entry) (out []repo.OriginSetting, ok bool) {
	origin := "file:" + filepath.Join(p.Dir, pinnedConfig)
	for _, e := range kept {
		if _, _, _, ok := splitKey(e.key); ok {
			out = append(out, repo.OriginSetting{Origin: origin, Key: e.key, Value: e.value, NoValue: e.implicit})
		}
	}
	out = append(out,
		repo.OriginSetting{Origin: origin, Key: "core.attributesfile", Value: filepath.Join(p.Dir, pinnedAttrs)},
		repo.OriginSetting{Origin: origin, Key: "core.excludesfile", Value: filepath.Join(p.Dir, pinnedExcludes)})
	for _, e := range entries {
		switch e.scope {
		case "system", "global":
		case "local", "worktree", "command":
			out = append(out, repo.OriginSetting{Origin: e.origin, Key: e.key, Value: e.value, NoValue: e.implicit})
		default:
			return nil, false
		}
	}
	return out, true
}

// Env is what burl's own processes run with: the pinned configuration
// and no system files.
func (p *Pin) Env() []string {
	return []string{envGlobal + "=" + filepath.Join(p.Dir, pinnedConfig), envNoSystem + "=1", envAttrNoSys + "=1"}
}

// Setenv makes this process, and everything it starts, read the pinned
// configuration.
func (p *Pin) Setenv() error {
	for _, kv := range p.Env() {
		k, v, _ := strings.Cut(kv, "=")
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return nil
}

// Restore is env (burl's, after Setenv) with the pinned variables as the
// user had them: an agent's git reads the user's configuration.
func (p *Pin) Restore(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, pinned := p.orig[k]; pinned || isPinnedVar(k) {
			continue
		}
		out = append(out, kv)
	}
	for _, k := range pinnedVars {
		if v := p.orig[k]; v != nil {
			out = append(out, k+"="+*v)
		}
	}
	if v := p.orig[envSystem]; v != nil {
		out = append(out, envSystem+"="+*v)
	}
	return out
}

func isPinnedVar(k string) bool {
	for _, v := range pinnedVars {
		if k == v {
			return true
		}
	}
	return false
}

// Sources are the files the pinned configuration was read from (those
// that did not exist included: creating one changes the configuration).
func (p *Pin) Sources() []string {
	out := make([]string, len(p.sources))
	for i, s := range p.sources {
		out[i] = s.path
	}
	return out
}

// Changes names each source file that differs from what it was at the
// start and puts it back; and rewrites burl's private directory when a
// run without a sandbox could reach it. undone is false when something
// could not be put back.
func (p *Pin) Changes() (changes []string, undone bool) {
	undone = true
	for _, s := range p.sources {
		now := readSource(s.path)
		if now.exists == s.exists && bytes.Equal(now.data, s.data) && (!now.symlink || s.symlink) {
			continue
		}
		changes = append(changes, s.path+" (git config burl pinned at start)")
		if err := s.restore(now); err != nil {
			undone = false
		}
	}
	if d := p.check(); d != "" {
		changes = append(changes, d)
		if err := p.write(); err != nil {
			undone = false
		}
	}
	return changes, undone
}

// check names what differs in the private directory ("" when nothing).
func (p *Pin) check() string {
	if id, err := lstatID(p.Dir); err != nil || !id.same(p.dirID) {
		return p.Dir + " (burl's pinned git config) replaced"
	}
	for name, want := range p.files {
		path := filepath.Join(p.Dir, name)
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			return path + " (burl's pinned git config) replaced"
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
			return path + " (burl's pinned git config) changed"
		}
	}
	return ""
}

// write (re)creates the private directory with its files.
func (p *Pin) write() error {
	if id, err := lstatID(p.Dir); err != nil || p.dirID.fi != nil && !id.same(p.dirID) {
		_ = os.RemoveAll(p.Dir)
		if err := os.Mkdir(p.Dir, 0o700); err != nil {
			return err
		}
	}
	if err := os.Chmod(p.Dir, 0o700); err != nil {
		return err
	}
	for name, data := range p.files {
		path := filepath.Join(p.Dir, name)
		_ = os.Remove(path)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return err
		}
	}
	id, err := lstatID(p.Dir)
	p.dirID = id
	return err
}

// Close removes the private directory.
func (p *Pin) Close() {
	if p != nil && p.Dir != "" {
		_ = os.RemoveAll(p.Dir)
	}
}

func readSource(path string) source {
	s := source{path: path}
	if fi, err := os.Lstat(path); err == nil {
		s.symlink = fi.Mode()&fs.ModeSymlink != 0
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		s.mode = fi.Mode().Perm()
		if b, err := os.ReadFile(path); err == nil {
			s.data, s.exists = b, true
		}
	} else if err == nil {
		s.exists, s.data = true, []byte(fi.Mode().String()) // a directory or a socket: not a config
	}
	return s
}

// restore puts s back over what is there now.
func (s source) restore(now source) error {
	if now.symlink && !s.symlink || now.exists && !isRegular(s.path) {
		if err := os.RemoveAll(s.path); err != nil {
			return err
		}
	}
	if !s.exists {
		if err := os.Remove(s.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return err
	}
	mode := s.mode
	if mode == 0 {
		mode = 0o644
	}
	return os.WriteFile(s.path, s.data, mode)
}

func isRegular(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func fileBytes(p string) []byte {
	b, _ := os.ReadFile(p)
	return b
}

// listConfig is every setting git reads in root, in order, with its
// scope and origin (included files' settings carry their includer's scope).
func listConfig(root string) ([]entry, error) {
	out, err := gitx.Git{Dir: root, UserHooks: true}.RunInput(nil, "config", "--list", "--show-scope", "--show-origin", "--includes", "-z")
	if err != nil {
		return nil, fmt.Errorf("reading the git configuration to pin it: %w", err)
	}
	return parseList(out), nil
}

// parseList reads `git config --list --show-scope --show-origin -z`:
// scope NUL origin NUL key [LF value] NUL, repeated.
func parseList(b []byte) []entry {
	parts := bytes.Split(b, []byte{0})
	var out []entry
	for i := 0; i+2 < len(parts); i += 3 {
		e := entry{scope: string(parts[i]), origin: string(parts[i+1])}
		kv := string(parts[i+2])
		if k, v, ok := strings.Cut(kv, "\n"); ok {
			e.key, e.value = k, v
		} else {
			e.key, e.implicit = kv, true
		}
		out = append(out, e)
	}
	return out
}

// writeConfig writes entries as a git config file, one section header per
// run of settings of the same section.
func writeConfig(b *bytes.Buffer, entries []entry) {
	last := ""
	for _, e := range entries {
		section, sub, name, ok := splitKey(e.key)
		if !ok {
			continue
		}
		header := "[" + section + "]"
		if sub != nil {
			header = "[" + section + " \"" + quoteSubsection(*sub) + "\"]"
		}
		if header != last {
			b.WriteString(header + "\n")
			last = header
		}
		if e.implicit {
			fmt.Fprintf(b, "\t%s\n", name)
		} else {
			fmt.Fprintf(b, "\t%s = %s\n", name, quoteValue(e.value))
		}
	}
}

// splitKey is a key's section, subsection (nil for none) and name; ok is
// false for a key writeConfig cannot write.
func splitKey(key string) (section string, sub *string, name string, ok bool) {
	dot, end := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if dot <= 0 || end == len(key)-1 {
		return "", nil, "", false
	}
	if end > dot {
		s := key[dot+1 : end]
		sub = &s
	}
	return key[:dot], sub, key[end+1:], true
}

func quoteSubsection(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

// quoteValue is a config value in double quotes, with git's escapes: the
// value reads back exactly, leading spaces, # and ; included.
func quoteValue(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\b", `\b`).Replace(s) + `"`
}

// globalFiles are the files git reads as the global config.
func globalFiles(home string) []string {
	if g, ok := os.LookupEnv(envGlobal); ok {
		if g == "" || g == os.DevNull {
			return nil
		}
		return []string{g}
	}
	var out []string
	out = append(out, filepath.Join(XDGConfig(home), "git", "config"))
	if home != "" {
		out = append(out, filepath.Join(home, ".gitconfig"))
	}
	return out
}

// XDGConfig is $XDG_CONFIG_HOME, or its default under home: where git
// and the credential helpers look for their files.
func XDGConfig(home string) string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return x
	}
	return filepath.Join(home, ".config")
}

// includeTarget is the file an include path names, as git resolves it.
func includeTarget(v, dir, home string) string {
	v = ExpandHome(v, home)
	if v == "" {
		return ""
	}
	if !filepath.IsAbs(v) {
		v = filepath.Join(dir, v)
	}
	return v
}

// ExpandHome is p with a leading ~/ read as home, as git reads it.
func ExpandHome(p, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return p
}

// gitBool is git's reading of a boolean environment variable.
func gitBool(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
