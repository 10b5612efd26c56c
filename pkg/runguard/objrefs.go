package runguard

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// errInexact stops a read whose result would not be for-each-ref's.
var errInexact = errors.New("the ref files do not say it as git would")

// ObjectRefs are the refs of commonDir below the prefixes (each ending
// in "/") with the object id each names, as
// `git for-each-ref --format='%(objectname) %(refname)' <prefixes>` lists
// them, read from the files of git's files backend without starting git:
// loose refs first, then packed-refs where no loose file has the name; a
// symbolic ref as its target's object id; packed-refs' peeled lines
// skipped. A loose file that is not a regular file holding one object id
// of the repository's length (a link, a FIFO, a broken ref) is skipped
// and never opened or followed; it still hides its packed line (a loose
// ref git finds broken hides it from git too). ok is false where the files cannot say what git would:
// another ref backend (extensions.refStorage), an object format or a
// packed-refs line this reader does not know, a symbolic ref whose target
// is not among the refs read, anything unreadable. The caller then asks
// git.
func ObjectRefs(commonDir string, prefixes ...string) (refs map[string]string, ok bool) {
	cfg, err := os.ReadFile(filepath.Join(commonDir, "config"))
	if err != nil {
		return nil, false
	}
	hexLen, ok := filesBackend(cfg)
	if !ok {
		return nil, false
	}
	if _, err := os.Lstat(filepath.Join(commonDir, "reftable")); !errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	refs = map[string]string{}
	loose := map[string]bool{}
	symbolic := map[string]string{}
	unreadable := false
	for _, prefix := range prefixes {
		err := eachLoose(commonDir, strings.TrimSuffix(prefix, "/"), func(name, p string) {
			v, ok := readLoose(p)
			if !ok {
				// Gone since the walk saw it: packed (its line is read
				// next) or deleted.
				_, err := os.Lstat(p)
				unreadable = unreadable || !errors.Is(err, os.ErrNotExist)
				return
			}
			loose[name] = true
			switch {
			case !validName(name) || !under(name, prefixes):
			case isOID(v, hexLen):
				refs[name] = v
			case strings.HasPrefix(v, "ref: "):
				symbolic[name] = strings.TrimPrefix(v, "ref: ")
			}
		})
		if err != nil || unreadable {
			return nil, false
		}
	}
	err = eachPacked(filepath.Join(commonDir, "packed-refs"), func(oid, name string) error {
		if !isOID(oid, hexLen) || !validName(name) {
			return errInexact // git itself refuses such a packed-refs
		}
		if !loose[name] && under(name, prefixes) {
			refs[name] = oid
		}
		return nil
	})
	if err != nil {
		return nil, false
	}
	// git follows a symbolic ref five deep at most.
	for name, target := range symbolic {
		for n := 0; ; n++ {
			if oid, ok := refs[target]; ok {
				refs[name] = oid
				break
			}
			next, ok := symbolic[target]
			if !ok || n == 5 {
				return nil, false
			}
			target = next
		}
	}
	return refs, true
}

// under: name is below one of the prefixes.
func under(name string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// validName is what check_refname_format asks of a ref git lists: a name
// it refuses is a broken ref, never listed.
func validName(name string) bool {
	if name == "" || strings.HasSuffix(name, ".") || strings.HasSuffix(name, "/") ||
		strings.Contains(name, "..") || strings.Contains(name, "@{") || strings.Contains(name, "//") ||
		strings.ContainsAny(name, " ~^:?*[\\\x7f") || strings.Contains(name, "/.") {
		return false
	}
	for _, c := range []byte(name) {
		if c < ' ' {
			return false
		}
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasSuffix(part, ".lock") {
			return false
		}
	}
	return true
}

// isOID: s is one object id of hexLen lowercase hex digits, as git
// writes them.
func isOID(s string, hexLen int) bool {
	return len(s) == hexLen && strings.Trim(s, "0123456789abcdef") == ""
}

// filesBackend is the length of the repository's object ids, from the
// extensions of its common config (git reads them from that file alone),
// and false where its refs are not files or the config names either
// extension in a way this reading does not know.
func filesBackend(cfg []byte) (hexLen int, ok bool) {
	hexLen = 40
	section := ""
	for _, l := range strings.Split(string(cfg), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[") {
			end := strings.IndexByte(l, ']')
			if end < 0 {
				return 0, false
			}
			section = strings.ToLower(strings.TrimSpace(l[1:end]))
			l = strings.TrimSpace(l[end+1:])
		}
		low := bytes.ToLower([]byte(l))
		if !bytes.Contains(low, []byte("refstorage")) && !bytes.Contains(low, []byte("objectformat")) {
			continue
		}
		if section != "extensions" {
			return 0, false
		}
		k, v, _ := strings.Cut(l, "=")
		switch k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v); {
		case k == "refstorage" && v == "files":
		case k == "objectformat" && v == "sha1":
			hexLen = 40
		case k == "objectformat" && v == "sha256":
			hexLen = 64
		default:
			return 0, false
		}
	}
	return hexLen, true
}
