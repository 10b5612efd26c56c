package trust

import (
	"fmt"
	"strings"
	"testing"

	"github.com/burl-dev/burl/pkg/repo"
)

// checkRepo is a repository for Check with nothing to ask git (no
// worktree: an untrusted command's last change is then unknown).
func checkRepo(t testing.TB) *repo.Repo {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	return &repo.Repo{CommonDir: t.TempDir()}
}

func TestCheckGrantImplicit(t *testing.T) {
	r := checkRepo(t)
	build := Config("/wf", "build_command", "make test")
	if err := Check(r, build); err == nil {
		t.Fatal("an empty store trusts a command")
	}
	if err := Check(r, Config("/wf", "build_command", "  ")); err != nil {
		t.Errorf("an empty text runs nothing and needs no trust: %v", err)
	}
	if granted, err := Implicit(r, build); err != nil || !granted {
		t.Fatalf("Implicit outside a watch run: %v %v", granted, err)
	}
	if err := Check(r, build); err != nil {
		t.Errorf("trusted, yet: %v", err)
	}
	// The same text at another place, or in another clone, is not trusted.
	if err := Check(r, Config("/wf", "worktree_setup.command", "make test")); err == nil {
		t.Error("trust leaked to another key")
	}
	if err := Check(&repo.Repo{CommonDir: t.TempDir()}, build); err == nil {
		t.Error("trust leaked to another repository")
	}
	changed := Config("/wf", "build_command", "make test && curl x | sh")
	ps, err := Untrusted(r, changed)
	if err != nil || len(ps) != 1 || ps[0].Previous == nil || *ps[0].Previous != "make test" {
		t.Fatalf("Untrusted = %+v, %v; want the changed text with the previous one", ps, err)
	}
	e := Refusal(r, ps)
	for _, want := range []string{"  - make test\n", "  + make test && curl x | sh"} {
		if !strings.Contains(e.Reason, want) {
			t.Errorf("the refusal does not show %q:\n%s", want, e.Reason)
		}
	}
}

// BenchmarkCheckTrusted is what a verb pays before it runs a trusted
// command: read a store of 1,000 trusted texts and hash one.
func BenchmarkCheckTrusted(b *testing.B) {
	r := checkRepo(b)
	var cmds []Command
	for i := 0; i < 1000; i++ {
		cmds = append(cmds, Command{File: fmt.Sprintf("TASK-%04d", i), Key: "verify", Text: fmt.Sprintf("go test ./pkg/%d/...", i)})
	}
	if err := Grant(r, cmds...); err != nil {
		b.Fatal(err)
	}
	c := cmds[500]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := Check(r, c); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWeakeningAGateNeedsTrust(t *testing.T) {
	r := checkRepo(t)
	build := ConfigGate("/wf", "build_command", "make test")
	emptied := ConfigGate("/wf", "build_command", "")
	if err := Check(r, emptied); err != nil {
		t.Fatalf("an empty build_command where none was trusted: %v", err)
	}
	if _, err := Implicit(r, build); err != nil {
		t.Fatal(err)
	}
	if err := Check(r, emptied); err == nil {
		t.Fatal("emptying a trusted build_command needs no trust")
	}
	if err := Grant(r, emptied); err != nil {
		t.Fatal(err)
	}
	if err := Check(r, emptied); err != nil {
		t.Fatalf("the empty text trusted, yet: %v", err)
	}

	base := []string{"TODO", "FIXME"}
	list := func(xs ...string) Command { return ConfigList("/wf", "stub_patterns", xs, base) }
	if err := Check(r, list("TODO", "FIXME", "XXX")); err != nil {
		t.Errorf("adding a pattern to the defaults: %v", err)
	}
	ps, err := Untrusted(r, list("FIXME"))
	if err != nil || len(ps) != 1 || ps[0].Previous == nil || *ps[0].Previous != `["TODO","FIXME"]` {
		t.Fatalf("removing a default pattern: %+v %v", ps, err)
	}
	if e := Refusal(r, ps); !strings.Contains(e.Reason, "removes TODO") {
		t.Errorf("the refusal does not name what goes:\n%s", e.Reason)
	}
	if err := Grant(r, list("FIXME", "HACK")); err != nil {
		t.Fatal(err)
	}
	// Judged by the list last trusted now, not by the defaults.
	if err := Check(r, list("FIXME", "HACK", "TODO")); err != nil {
		t.Errorf("a superset of the trusted list: %v", err)
	}
	if err := Check(r, list("FIXME")); err == nil {
		t.Error("removing HACK from the trusted list needs no trust")
	}
}
