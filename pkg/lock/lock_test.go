package lock

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/errs"
)

func testDir(t *testing.T) Dir {
	root := t.TempDir()
	return Dir{
		// A missing directory: Acquire must create it.
		Path:       filepath.Join(root, ".burl", ".workflow", "locks"),
		Rel:        func(p string) string { r, _ := filepath.Rel(root, p); return filepath.ToSlash(r) },
		StaleAfter: time.Hour,
	}
}

func me(action string) Info {
	host, _ := os.Hostname()
	return Info{Owner: "worker", Host: host, PID: os.Getpid(), CreatedAt: time.Now().UTC(), Action: action}
}

func TestAcquireRelease(t *testing.T) {
	d := testDir(t)
	l, err := d.Acquire("TASK-001", me("claim"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(l.Path)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("lock body is not JSON: %q", data)
	}
	for _, k := range []string{"owner", "host", "pid", "created_at", "action"} {
		if _, ok := got[k]; !ok {
			t.Errorf("lock body lacks %q: %s", k, data)
		}
	}
	if _, err := time.Parse(time.RFC3339, got["created_at"].(string)); err != nil {
		t.Errorf("created_at is not RFC 3339: %v", got["created_at"])
	}
	if !d.Held("TASK-001") {
		t.Error("Held = false while held")
	}

	_, err = d.Acquire("TASK-001", me("submit"))
	if errs.KindOf(err) != errs.Lock {
		t.Fatalf("second Acquire: %v (kind %v), want a lock error", err, errs.KindOf(err))
	}
	var e *errs.Error
	if !errors.As(err, &e) || !strings.Contains(e.Reason, ".burl/.workflow/locks/TASK-001.lock") ||
		!strings.Contains(e.Reason, "worker@") || !strings.Contains(e.Reason, "claim") {
		t.Errorf("lock error should name the lock path, its owner and action: %q", err)
	}
	if !strings.Contains(e.Fix, "git burl lock clear TASK-001 --force") {
		t.Errorf("lock error should prescribe the fix: %q", e.Fix)
	}

	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if d.Held("TASK-001") {
		t.Error("still held after Release")
	}
	if err := l.Release(); err != nil {
		t.Errorf("a second Release must be harmless: %v", err)
	}
	if err := (*Lock)(nil).Release(); err != nil {
		t.Errorf("nil Release: %v", err)
	}
	l2, err := d.Acquire("TASK-001", me("submit"))
	if err != nil {
		t.Fatalf("re-acquire after release: %v", err)
	}
	_ = l2.Release()
}

// A holder that releases twice (once when its work is committed, once on
// the way out) must not remove the lock someone took in between.
func TestSecondReleaseLeavesTheNextHoldersLock(t *testing.T) {
	d := testDir(t)
	first, err := d.Acquire(Main, me("approve"))
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	next, err := d.Acquire(Main, me("approve"))
	if err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	if err := first.Release(); err != nil {
		t.Fatal(err)
	}
	if !d.Held(Main) {
		t.Fatal("the first holder's second Release removed the next holder's lock")
	}
	if _, err := d.Acquire(Main, me("approve")); errs.KindOf(err) != errs.Lock {
		t.Fatalf("a third process got the lock while the second holds it: %v", err)
	}
	if err := next.Release(); err != nil || d.Held(Main) {
		t.Fatalf("release by its holder: %v, held %v", err, d.Held(Main))
	}
}

func TestHeldErrorWording(t *testing.T) {
	d := testDir(t)
	for name, want := range map[string]string{Workflow: "workflow is locked", Claim: "another claim"} {
		l, err := d.Acquire(name, me("x"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = d.Acquire(name, me("y"))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), name+".lock") {
			t.Errorf("%s: %v", name, err)
		}
		_ = l.Release()
	}
}

// Only one of many concurrent acquirers wins (create_new semantics).
func TestAcquireExclusive(t *testing.T) {
	d := testDir(t)
	if err := os.MkdirAll(d.Path, 0o755); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := d.Acquire("TASK-001", me("claim")); err == nil {
				mu.Lock()
				wins++
				mu.Unlock()
			} else if errs.KindOf(err) != errs.Lock {
				t.Errorf("loser got %v, want a lock error", err)
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("%d winners, want exactly 1", wins)
	}
}

func writeLock(t *testing.T, d Dir, name string, body []byte) {
	t.Helper()
	if err := os.MkdirAll(d.Path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d.Path, name+".lock"), body, 0o644); err != nil {
		t.Fatal(err)
	}
}

func exitedPID(t *testing.T) int {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("uses a POSIX true(1)")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

func TestListStaleDeadUnreadable(t *testing.T) {
	d := testDir(t)
	host, _ := os.Hostname()
	js := func(i Info) []byte { b, _ := json.Marshal(i); return b }

	// Fresh and alive: our own process.
	writeLock(t, d, "TASK-001", js(me("claim")))
	// Old, on another host: stale, and we cannot know if it is alive.
	writeLock(t, d, "TASK-002", js(Info{Owner: "w", Host: "elsewhere.invalid", PID: 1, CreatedAt: time.Now().Add(-3 * time.Hour), Action: "submit"}))
	// This host, a process that has exited: dead, even though recent.
	writeLock(t, d, "TASK-003", js(Info{Owner: "w", Host: host, PID: exitedPID(t), CreatedAt: time.Now(), Action: "approve"}))
	// A crash between create and write leaves an empty file.
	writeLock(t, d, "workflow", nil)
	// Not a lock: ignored.
	writeLock(t, d, "README", nil)
	if err := os.Rename(filepath.Join(d.Path, "README.lock"), filepath.Join(d.Path, "README.txt")); err != nil {
		t.Fatal(err)
	}

	list, err := d.List()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	by := map[string]Status{}
	for _, s := range list {
		names = append(names, s.Name)
		by[s.Name] = s
	}
	if strings.Join(names, ",") != "TASK-001,TASK-002,TASK-003,workflow" {
		t.Fatalf("List names = %v (sorted, .lock files only)", names)
	}
	if s := by["TASK-001"]; s.Stale || s.Dead || s.Unreadable || s.Info.Action != "claim" {
		t.Errorf("fresh own lock: %+v", s)
	}
	if s := by["TASK-002"]; !s.Stale || s.Dead || s.AgeS < 3*3600-5 {
		t.Errorf("old foreign lock should be stale, not dead: %+v", s)
	}
	if s := by["TASK-002"]; !strings.Contains(s.Describe(), "stale") || !strings.Contains(s.Describe(), "w@elsewhere.invalid") {
		t.Errorf("Describe = %q", s.Describe())
	}
	if s := by["TASK-003"]; !s.Dead || s.Stale {
		t.Errorf("lock of an exited process on this host should be dead: %+v", s)
	}
	if s := by["TASK-003"]; !strings.Contains(s.Describe(), "no longer running") {
		t.Errorf("Describe = %q", s.Describe())
	}
	if s := by["workflow"]; !s.Unreadable || s.Dead || !strings.Contains(s.Describe(), "unreadable") {
		t.Errorf("empty lock file: %+v %q", s, s.Describe())
	}
	// Reporting never clears anything.
	for _, n := range names {
		if !d.Held(n) {
			t.Errorf("List removed %s", n)
		}
	}

	// Acquiring over an unreadable lock still fails, and says it is unreadable.
	_, err = d.Acquire("workflow", me("add"))
	if errs.KindOf(err) != errs.Lock || !strings.Contains(err.Error(), "unreadable") {
		t.Errorf("acquire over an empty lock file: %v", err)
	}
}

func TestListMissingDir(t *testing.T) {
	d := testDir(t)
	list, err := d.List()
	if err != nil || len(list) != 0 {
		t.Errorf("List of a missing dir = %v, %v", list, err)
	}
}

func TestClear(t *testing.T) {
	d := testDir(t)
	if _, err := d.Acquire("TASK-009", me("claim")); err != nil {
		t.Fatal(err)
	}
	if err := d.Clear("TASK-009"); err != nil || d.Held("TASK-009") {
		t.Fatalf("Clear: %v", err)
	}
	err := d.Clear("TASK-009")
	if errs.KindOf(err) != errs.User || !strings.Contains(err.Error(), "TASK-009.lock") {
		t.Errorf("clearing a missing lock: %v", err)
	}
}

func TestAcquireWait(t *testing.T) {
	d := testDir(t)
	held, err := d.Acquire(Workflow, me("add"))
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan time.Time, 1)
	go func() {
		time.Sleep(150 * time.Millisecond)
		released <- time.Now()
		_ = held.Release()
	}()
	l, err := d.AcquireWait(Workflow, me("add"), 5*time.Second)
	got := time.Now()
	if err != nil {
		t.Fatalf("AcquireWait: %v", err)
	}
	defer l.Release()
	if at := <-released; got.Before(at) {
		t.Errorf("AcquireWait returned at %v, before the holder released at %v", got, at)
	}

	// With nobody releasing, it gives up after the wait with a lock error.
	start := time.Now()
	_, err = d.AcquireWait(Workflow, me("add"), 200*time.Millisecond)
	if errs.KindOf(err) != errs.Lock {
		t.Errorf("AcquireWait on a held lock: %v", err)
	}
	if el := time.Since(start); el < 200*time.Millisecond || el > 3*time.Second {
		t.Errorf("AcquireWait gave up after %v, want about 200ms", el)
	}
}

// A lock whose holder is a dead process on this host is never released:
// AcquireWait reports it at once instead of waiting out its timeout.
func TestAcquireWaitDeadHolder(t *testing.T) {
	d := testDir(t)
	host, _ := os.Hostname()
	body, _ := json.Marshal(Info{Owner: "w", Host: host, PID: exitedPID(t), CreatedAt: time.Now(), Action: "add"})
	writeLock(t, d, Workflow, body)
	start := time.Now()
	_, err := d.AcquireWait(Workflow, me("add"), 10*time.Second)
	if errs.KindOf(err) != errs.Lock || !strings.Contains(err.Error(), "no longer running") {
		t.Errorf("AcquireWait over a dead holder = %v", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("AcquireWait waited %v for a dead holder", el)
	}
	if !d.Held(Workflow) {
		t.Error("a dead holder's lock must still not be cleared")
	}
}

func TestHumanAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		5 * time.Second:             "5s",
		34 * time.Minute:            "34m",
		3*time.Hour + 7*time.Minute: "3h07m",
		72 * time.Hour:              "3d",
	} {
		if got := humanAge(d); got != want {
			t.Errorf("humanAge(%v) = %q, want %q", d, got, want)
		}
	}
}

// A lock names its process by pid and start time: once the pid names a
// younger process (pid reuse) or a zombie, the holder is gone.
func TestDeadByIdentity(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process start times come from /proc")
	}
	d := testDir(t)
	l, err := d.Acquire("TASK-001", me("claim"))
	if err != nil {
		t.Fatal(err)
	}
	var in Info
	data, _ := os.ReadFile(l.Path)
	if err := json.Unmarshal(data, &in); err != nil || in.StartTime == "" || in.BootID == "" {
		t.Fatalf("lock should record start time and boot id: %s", data)
	}
	if st, _ := d.Stat("TASK-001"); st.Dead {
		t.Fatalf("own live lock reported dead: %+v", st)
	}

	rewrite := func(f func(*Info)) {
		t.Helper()
		x := in
		f(&x)
		b, _ := json.Marshal(x)
		if err := os.WriteFile(l.Path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rewrite(func(x *Info) { x.StartTime = "1" })
	st, _ := d.Stat("TASK-001")
	if !st.Dead || !strings.Contains(st.Describe(), "now belongs to another process") {
		t.Errorf("reused pid: %+v %q", st, st.Describe())
	}
	rewrite(func(x *Info) { x.BootID = "00000000-0000-0000-0000-000000000000" })
	if st, _ := d.Stat("TASK-001"); !st.Dead || !strings.Contains(st.Describe(), "rebooted") {
		t.Errorf("lock from an earlier boot: %+v", st)
	}
	// An older lock without the new fields is judged by its pid alone.
	rewrite(func(x *Info) { x.StartTime, x.BootID = "", "" })
	if st, _ := d.Stat("TASK-001"); st.Dead {
		t.Errorf("old-format lock of a live pid reported dead: %+v", st)
	}

	// A child that exited but is not reaped yet still answers kill(pid, 0).
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Wait() }()
	zombie := in
	zombie.PID = cmd.Process.Pid
	zombie.StartTime = ""
	b, _ := json.Marshal(zombie)
	if err := os.WriteFile(d.file("TASK-002"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, _ := d.Stat("TASK-002")
		if st.Dead && strings.Contains(st.Describe(), "zombie") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("zombie holder not seen as dead: %+v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TakeOver puts the taker's lock where the dead holder's was, and refuses
// a lock that changed since it was read (another holder took it meanwhile).
func TestTakeOver(t *testing.T) {
	d := testDir(t)
	host, _ := os.Hostname()
	body, _ := json.Marshal(Info{Owner: "w", Host: host, PID: exitedPID(t), CreatedAt: time.Now(), Action: "approve"})
	writeLock(t, d, Workflow, body)
	was, err := d.Stat(Workflow)
	if err != nil || !was.Dead {
		t.Fatalf("Stat = %+v, %v", was, err)
	}
	l, err := d.TakeOver(Workflow, was, me("repair"))
	if err != nil {
		t.Fatal(err)
	}
	now, err := d.Stat(Workflow)
	if err != nil || now.Dead || now.Info.PID != os.Getpid() || now.Info.Action != "repair" {
		t.Fatalf("after TakeOver the lock is %+v, %v", now, err)
	}
	if ents, _ := os.ReadDir(d.Path); len(ents) != 1 {
		t.Errorf("TakeOver left %d files in the lock folder", len(ents))
	}
	// The dead holder's lock as read before is not there any more.
	if _, err := d.TakeOver(Workflow, was, me("repair")); errs.KindOf(err) != errs.Lock {
		t.Errorf("TakeOver of a lock that changed hands = %v", err)
	}
	if err := l.Release(); err != nil || d.Held(Workflow) {
		t.Errorf("Release after TakeOver: %v, held %v", err, d.Held(Workflow))
	}
}

// A lock appears whole: Acquire leaves nothing but the lock behind, and
// what a taker killed before its link left is removed once it is gone.
func TestAcquireLeavesNoTempAndCleanTemps(t *testing.T) {
	d := testDir(t)
	l, err := d.Acquire(Workflow, me("add"))
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(d.Path); len(ents) != 1 {
		t.Fatalf("Acquire left %d files", len(ents))
	}
	defer l.Release()
	dead := filepath.Join(d.Path, fmt.Sprintf("TASK-001.lock.%d.1.new", exitedPID(t)))
	mine := tempName(filepath.Join(d.Path, "TASK-002.lock"), "new")
	for _, p := range []string{dead, mine} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := d.CleanTemps(); len(got) != 0 {
		t.Fatalf("CleanTemps removed a file written this moment: %v", got)
	}
	old := time.Now().Add(-2 * tempAge)
	for _, p := range []string{dead, mine} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if got := d.CleanTemps(); len(got) != 1 || got[0] != filepath.Base(dead) {
		t.Fatalf("CleanTemps removed %v", got)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Error("CleanTemps removed a live process's file")
	}
	if locks, _ := d.List(); len(locks) != 1 {
		t.Errorf("List sees %d locks, want the one held", len(locks))
	}
}

// On a filesystem without hard links the lock is still taken, once.
func TestAcquireWithoutHardLinks(t *testing.T) {
	defer func(l func(string, string) error) { link = l }(link)
	link = func(string, string) error { return &os.LinkError{Op: "link", Err: syscall.EPERM} }
	d := testDir(t)
	l, err := d.Acquire(Workflow, me("add"))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := d.Stat(Workflow); err != nil || st.Info.Action != "add" {
		t.Fatalf("the lock holds %+v, %v", st.Info, err)
	}
	if _, err := d.Acquire(Workflow, me("claim")); errs.KindOf(err) != errs.Lock {
		t.Errorf("a second Acquire = %v, want held", err)
	}
	if ents, _ := os.ReadDir(d.Path); len(ents) != 1 {
		t.Errorf("%d files in the lock folder", len(ents))
	}
	_ = l.Release()
}
