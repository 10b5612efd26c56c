package trust

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestHashBindsRepositoryPlaceAndText(t *testing.T) {
	base := Hash("/r/.git", "config.yaml:build_command", "make test")
	if len(base) != 64 {
		t.Fatalf("Hash is not hex sha256: %q", base)
	}
	if Hash("/r/.git", "config.yaml:build_command", "make test") != base {
		t.Fatal("Hash is not deterministic")
	}
	for _, other := range [][3]string{
		{"/other/.git", "config.yaml:build_command", "make test"},
		{"/r/.git", "TASK-001:verify", "make test"},
		{"/r/.git", "config.yaml:build_command", "make test "},
		// Moving a separator between parts must not give the same input.
		{"/r/.git", "config.yaml:build_commandm", "ake test"},
	} {
		if Hash(other[0], other[1], other[2]) == base {
			t.Errorf("Hash%q equals the hash of another triple", other)
		}
	}
}

func TestDefaultStoreFollowsXDG(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	t.Setenv("XDG_STATE_HOME", "/state")
	if st, _ := DefaultStore(); st.Path != "/state/burl/trust" {
		t.Errorf("with XDG_STATE_HOME: %s", st.Path)
	}
	// The XDG spec: a relative path is invalid and ignored.
	t.Setenv("XDG_STATE_HOME", "rel")
	if st, _ := DefaultStore(); st.Path != "/home/u/.local/state/burl/trust" {
		t.Errorf("relative XDG_STATE_HOME: %s", st.Path)
	}
	t.Setenv("XDG_STATE_HOME", "")
	if st, _ := DefaultStore(); st.Path != "/home/u/.local/state/burl/trust" {
		t.Errorf("default: %s", st.Path)
	}
}

func TestStoreRoundTrip(t *testing.T) {
	st := Store{Path: filepath.Join(t.TempDir(), "state", "burl", "trust")}
	set, err := st.Load()
	if err != nil || set.Trusted("/r", "config.yaml:build_command", "make") {
		t.Fatalf("a missing store trusts nothing: %v", err)
	}
	if err := st.Add(NewRecord("/r", "config.yaml:build_command", "make")); err != nil {
		t.Fatal(err)
	}
	if err := st.Add(NewRecord("/r", "config.yaml:build_command", "make check"), NewRecord("/r", "config.yaml:build_command", "make")); err != nil {
		t.Fatal(err)
	}
	set, err = st.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"make", "make check"} {
		if !set.Trusted("/r", "config.yaml:build_command", text) {
			t.Errorf("%q not trusted after Add", text)
		}
	}
	if set.Trusted("/other", "config.yaml:build_command", "make") {
		t.Error("trust leaked to another repository")
	}
	if prev, ok := set.Previous("/r", "config.yaml:build_command"); !ok || prev.Text != "make check" {
		t.Errorf("Previous = %+v, %v; want the last trusted text", prev, ok)
	}
	data, _ := os.ReadFile(st.Path)
	if n := strings.Count(string(data), "\n"); n != 2 {
		t.Errorf("a text trusted twice is stored once; %d lines:\n%s", n, data)
	}
	if fi, err := os.Stat(st.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the store is the user's alone: %v %v", fi.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(st.Path), "trust.lock")); !os.IsNotExist(err) {
		t.Errorf("the lock is left behind: %v", err)
	}
}

// A record only counts by the hash of what is about to run: a line whose
// text was edited by hand trusts nothing new, and a broken line is kept
// (as written) and skipped.
func TestStoreIgnoresTamperedAndBrokenLines(t *testing.T) {
	st := Store{Path: filepath.Join(t.TempDir(), "trust")}
	forged := `{"sha256":"` + Hash("/r", "k", "old") + `","repo":"/r","where":"k","text":"rm -rf /"}`
	if err := os.WriteFile(st.Path, []byte("not json\n"+forged), 0o600); err != nil {
		t.Fatal(err)
	}
	set, _ := st.Load()
	if set.Trusted("/r", "k", "rm -rf /") {
		t.Error("the text of a record trusted something its hash does not cover")
	}
	if ok, err := st.Probe([]string{Hash("/r", "k", "rm -rf /")}, nil); ok || err != nil {
		t.Errorf("Has trusts a text by a record of another: %v %v", ok, err)
	}
	if ok, _ := st.Probe([]string{Hash("/r", "k", "old")}, nil); !ok {
		t.Error("Has misses the record's own hash")
	}
	if _, ok := set.Previous("/r", "k"); ok {
		t.Error("a record whose hash does not match its text is offered as the previous text")
	}
	if err := st.Add(NewRecord("/r", "k", "new")); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(st.Path)
	if !strings.HasPrefix(string(data), "not json\n"+forged+"\n") {
		t.Errorf("existing lines were not kept as written:\n%s", data)
	}
}

func TestStoreConcurrentWritersLoseNothing(t *testing.T) {
	st := Store{Path: filepath.Join(t.TempDir(), "trust")}
	const n = 24
	var wg sync.WaitGroup
	errc := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errc <- st.Add(NewRecord("/r", fmt.Sprintf("T-%03d:verify", i), "true"))
		}(i)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Fatal(err)
		}
	}
	set, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if !set.Trusted("/r", fmt.Sprintf("T-%03d:verify", i), "true") {
			t.Errorf("writer %d's trust was lost", i)
		}
	}
}

// A lock left by a writer that died does not keep trust from being written.
func TestStoreClearsADeadWritersLock(t *testing.T) {
	dir := t.TempDir()
	st := Store{Path: filepath.Join(dir, "trust")}
	host, _ := os.Hostname()
	dead := fmt.Sprintf(`{"owner":"git burl trust","host":%q,"pid":999999999,"created_at":"2026-01-01T00:00:00Z","action":"trust"}`, host)
	if err := os.WriteFile(filepath.Join(dir, "trust.lock"), []byte(dead), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := st.Add(NewRecord("/r", "k", "v")); err != nil {
		t.Fatalf("Add with a dead writer's lock: %v", err)
	}
}
