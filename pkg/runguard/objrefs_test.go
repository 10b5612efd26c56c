package runguard

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/burl-dev/burl/internal/gittest"
)

var shared = []string{"refs/heads/", "refs/remotes/", "refs/tags/"}

// forEachRef is what ObjectRefs stands for.
func forEachRef(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := gittest.Git(t, dir, append([]string{"for-each-ref", "--format=%(objectname) %(refname)"}, shared...)...)
	refs := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if oid, name, ok := strings.Cut(l, " "); ok {
			refs[name] = oid
		}
	}
	return refs
}

// refsRepo is a clone (origin/HEAD a symbolic ref to origin/main) with
// branches, a light and an annotated tag, all packed, then loose refs
// over some of the packed ones and new loose ones beside them.
func refsRepo(t *testing.T, initArgs ...string) (dir, common string) {
	t.Helper()
	gittest.Isolate(t)
	root := t.TempDir()
	origin := filepath.Join(root, "origin")
	gittest.Git(t, root, append([]string{"init", "-q", "-b", "main"}, append(initArgs, origin)...)...)
	gittest.Git(t, origin, "commit", "-q", "--allow-empty", "-m", "one")
	gittest.Git(t, origin, "branch", "side")
	dir = filepath.Join(root, "clone")
	gittest.Git(t, root, "clone", "-q", origin, dir)
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "two")
	gittest.Git(t, dir, "branch", "task-001-x")
	gittest.Git(t, dir, "branch", "feature/deep/one")
	gittest.Git(t, dir, "tag", "light")
	gittest.Git(t, dir, "tag", "-a", "-m", "annotated", "v1")
	gittest.Git(t, dir, "pack-refs", "--all")
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "three")
	gittest.Git(t, dir, "branch", "-f", "task-001-x")
	gittest.Git(t, dir, "tag", "-f", "-a", "-m", "again", "v1")
	gittest.Git(t, dir, "tag", "v2")
	gittest.Git(t, dir, "branch", "loose-only")
	gittest.Git(t, dir, "update-ref", "refs/remotes/origin/side", "HEAD")
	common = filepath.Join(dir, ".git")
	if _, err := os.Stat(filepath.Join(common, "refs", "remotes", "origin", "HEAD")); err != nil {
		t.Fatalf("the clone has no loose origin/HEAD: %v", err)
	}
	return dir, common
}

func sameRefs(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d refs read, for-each-ref lists %d:\n%v\n%v", len(got), len(want), got, want)
	}
	for name, oid := range want {
		if got[name] != oid {
			t.Errorf("%s read as %q, for-each-ref says %s", name, got[name], oid)
		}
	}
}

// ObjectRefs reads, loose over packed, what for-each-ref lists: origin/HEAD
// as its target's object id, an annotated tag as the tag object's,
// packed-refs' peeled lines left out.
func TestObjectRefsAsForEachRef(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		t.Run(format, func(t *testing.T) {
			dir, common := refsRepo(t, "--object-format="+format)
			packed, _ := os.ReadFile(filepath.Join(common, "packed-refs"))
			if !strings.Contains(string(packed), "\n^") || !strings.Contains(string(packed), " refs/heads/task-001-x\n") {
				t.Fatalf("the test's packed-refs has no peeled line or no task branch:\n%s", packed)
			}
			got, ok := ObjectRefs(common, shared...)
			if !ok {
				t.Fatal("ObjectRefs gave up on a plain repository")
			}
			want := forEachRef(t, dir)
			sameRefs(t, got, want)
			if want["refs/remotes/origin/HEAD"] == "" || want["refs/heads/task-001-x"] != gittest.Git(t, dir, "rev-parse", "HEAD") {
				t.Fatalf("the test's repository is not what it should be: %v", want)
			}
		})
	}
}

// A lock file, a link and a FIFO among the loose refs are neither
// followed nor opened (a FIFO would hang the read): the link hides its
// packed line as a broken ref hides it from git.
func TestObjectRefsSkipsWhatIsNotARefFile(t *testing.T) {
	dir, common := refsRepo(t)
	want := forEachRef(t, dir)
	heads := filepath.Join(common, "refs", "heads")
	if err := os.WriteFile(filepath.Join(heads, "main.lock"), []byte(strings.Repeat("0", 40)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(heads, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	// feature/deep/one is packed only: a link at its place points at
	// another branch's file.
	if err := os.MkdirAll(filepath.Join(heads, "feature", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(heads, "loose-only"), filepath.Join(heads, "feature", "deep", "one")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(heads, "two-ids"), []byte(want["refs/heads/main"]+"\n"+want["refs/heads/main"]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan map[string]string, 1)
	go func() {
		got, ok := ObjectRefs(common, shared...)
		if !ok {
			got = nil
		}
		done <- got
	}()
	var got map[string]string
	select {
	case got = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("ObjectRefs hangs on a FIFO")
	}
	if got == nil {
		t.Fatal("ObjectRefs gave up")
	}
	delete(want, "refs/heads/feature/deep/one")
	sameRefs(t, got, want)
}

// Where the files cannot say exactly what git would, ObjectRefs says so
// and its caller asks git.
func TestObjectRefsGivesUp(t *testing.T) {
	for name, spoil := range map[string]func(t *testing.T, common string){
		"reftable": func(t *testing.T, common string) {
			appendFile(t, filepath.Join(common, "config"), "[extensions]\n\trefStorage = reftable\n")
		},
		"unknown object format": func(t *testing.T, common string) {
			appendFile(t, filepath.Join(common, "config"), "[extensions]\n\tobjectFormat = sha512\n")
		},
		"dangling symbolic ref": func(t *testing.T, common string) {
			if err := os.WriteFile(filepath.Join(common, "refs", "remotes", "origin", "HEAD"), []byte("ref: refs/remotes/origin/gone\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"packed-refs git refuses": func(t *testing.T, common string) {
			appendFile(t, filepath.Join(common, "packed-refs"), "not-an-id refs/heads/bad\n")
		},
		"unreadable ref": func(t *testing.T, common string) {
			p := filepath.Join(common, "refs", "heads", "loose-only")
			if err := os.Chmod(p, 0); err != nil {
				t.Fatal(err)
			}
			if f, err := os.Open(p); err == nil {
				f.Close()
				t.Skip("running as root: a file without permissions is still readable")
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, common := refsRepo(t)
			if _, ok := ObjectRefs(common, shared...); !ok {
				t.Fatal("ObjectRefs gave up on the repository before it was spoiled")
			}
			spoil(t, common)
			if refs, ok := ObjectRefs(common, shared...); ok {
				t.Fatalf("ObjectRefs read %v", refs)
			}
		})
	}
}

func appendFile(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// The config's extensions, as git reads them for the refs' storage and
// the object ids' length.
func TestFilesBackend(t *testing.T) {
	for cfg, want := range map[string]int{
		"[core]\n\tbare = false\n":                                    40,
		"[extensions]\n\tobjectformat = sha256\n":                     64,
		"[extensions]\n\tobjectFormat = sha1\n\trefStorage = files\n": 40,
		"[extensions] objectformat = sha256\n":                        64,
		"[extensions]\n\trefstorage = reftable\n":                     0,
		"[extensions]\n\trefstorage = \"reftable\"\n":                 0,
		"[extensions \"x\"]\n\trefstorage = files\n":                  0,
		"[core]\n\trefstorage = files\n":                              0,
		"[extensions\n":                                               0,
	} {
		got, ok := filesBackend([]byte(cfg))
		if !ok {
			got = 0
		}
		if got != want {
			t.Errorf("%q: %d, want %d", cfg, got, want)
		}
	}
}
