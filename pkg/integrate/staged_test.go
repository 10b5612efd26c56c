package integrate

import (
	"os"
	"testing"
	"time"
)

func TestIntentMoves(t *testing.T) {
	squash := &Intent{Task: "TASK-001", Submitted: "s", Rebased: "r", Merged: "q"}
	rebase := &Intent{Task: "TASK-001", Submitted: "s", Merged: "r"}
	for _, c := range []struct {
		in       *Intent
		old, new string
		want     bool
	}{
		{squash, "s", "q", true},
		{squash, "s", "r", true},
		{squash, "r", "q", true},
		{squash, "q", "s", true}, // put back by the queue
		{squash, "r", "s", true},
		{squash, "q", "r", false},
		{squash, "s", "x", false}, // a commit the record does not name
		{squash, "x", "q", false},
		{squash, "s", "", false}, // deleted: the landing's event says so
		{squash, "", "q", false},
		{rebase, "s", "r", true},
		{rebase, "s", "q", false},
		{&Intent{Task: "TASK-001", Submitted: "s"}, "s", "r", false}, // under way
		{nil, "s", "r", false},
	} {
		if got := c.in.Moves(c.old, c.new); got != c.want {
			t.Errorf("%+v.Moves(%q, %q) = %v, want %v", c.in, c.old, c.new, got, c.want)
		}
	}
}

func TestAwaitStaged(t *testing.T) {
	dir := t.TempDir()
	host, _ := os.Hostname()
	in := Intent{Task: "TASK-001", Submitted: "s", Host: host, PID: os.Getpid()}
	if err := RecordIntent(dir, in); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		time.Sleep(100 * time.Millisecond)
		in.Merged = "q"
		done <- RecordIntent(dir, in)
	}()
	got, staged := AwaitStaged(dir, "TASK-001", host, 10*time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !staged || got == nil || got.Merged != "q" {
		t.Fatalf("AwaitStaged = %+v, %v; want the finished record, staged", got, staged)
	}
	// A record whose process is gone is not waited for.
	in.Merged, in.PID = "", 1<<30
	if err := RecordIntent(dir, in); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if got, staged := AwaitStaged(dir, "TASK-001", host, 10*time.Second); !staged || !got.Staging() || time.Since(start) > 5*time.Second {
		t.Fatalf("AwaitStaged of a dead mover = %+v, %v after %s", got, staged, time.Since(start))
	}
	if got, staged := AwaitStaged(dir, "TASK-002", host, time.Second); got != nil || staged {
		t.Fatalf("AwaitStaged of no record = %+v, %v", got, staged)
	}
}
