package lease

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/osx"
)

var now = time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)

func TestLeaseCountsOnlyAfterTheClaim(t *testing.T) {
	for _, c := range []struct {
		name string
		f    Fields
		want State
	}{
		{"live", Fields{Expires: "2026-11-23T01:10:00Z", StartedAt: "2026-11-23T00:00:00Z"}, Live},
		{"expired", Fields{Expires: "2026-11-23T00:30:00Z", StartedAt: "2026-11-23T00:00:00Z"}, Expired},
		{"an earlier claim's lease", Fields{Expires: "2026-11-23T00:30:00Z", StartedAt: "2026-11-23T00:40:00Z"}, None},
		{"no lease", Fields{StartedAt: "2026-11-23T00:00:00Z"}, None},
		{"garbage", Fields{Expires: "next tuesday", StartedAt: "2026-11-23T00:00:00Z"}, Expired},
	} {
		if got := Check(c.f, now, 0, "h").State; got != c.want {
			t.Errorf("%s: state %d, want %d", c.name, got, c.want)
		}
	}
	justPast := Fields{Expires: "2026-11-23T00:59:30Z", StartedAt: "2026-11-23T00:00:00Z"}
	if Check(justPast, now, time.Minute, "h").Gone() || !Check(justPast, now, 10*time.Second, "h").Gone() {
		t.Error("lease_grace is not applied past lease_expires")
	}
	if s := Check(justPast, now, 0, "h"); !strings.Contains(s.Describe(), "lease of its holder expired at 2026-11-23T00:59:30Z") {
		t.Errorf("describe: %q", s.Describe())
	}
}

func TestLocalHoldersAreJudgedByTheirProcess(t *testing.T) {
	live := Fields{Expires: "2026-11-23T02:00:00Z", StartedAt: "2026-11-23T00:00:00Z"}
	// A pid no process has: the kernel's pid_max is below 2^22 by default.
	gone := live
	gone.Holder = "bot@h#4194303"
	if s := Check(gone, now, time.Minute, "h"); s.State != Dead || s.PID != 4194303 || s.Describe() != "holder bot@h#4194303 is gone (process 4194303 exited)" {
		t.Errorf("a dead watcher of this host: %+v %q", s, s.Describe())
	}
	gone.Holder += ".123"
	if s := Check(gone, now, time.Minute, "h"); s.State != Dead || s.Describe() != "holder bot@h#4194303 is gone (process 4194303 exited)" {
		t.Errorf("a dead watcher of this host: %+v %q", s, s.Describe())
	}
	if Check(gone, now, time.Minute, "other").State != Live {
		t.Error("a watcher of another host is judged by its lease only")
	}
	// Claimed, no lease yet: the holder alone says who to ask.
	noLease := Fields{Holder: gone.Holder, StartedAt: live.StartedAt}
	if Check(noLease, now, time.Minute, "h").State != Dead || Check(noLease, now, time.Minute, "other").State != Live {
		t.Error("a holder without a lease is judged by its process here, live elsewhere")
	}
	alive := live
	alive.Holder = "bot@h#" + strconv.Itoa(os.Getppid())
	if s := Check(alive, now, time.Minute, "h"); s.State != Live {
		t.Errorf("a running watcher: %+v", s)
	}
	for _, h := range []string{"bot@h", "bot#12", "bot@h#x", "bot@h#-3"} {
		if _, ok := parse(h); ok {
			t.Errorf("%q parsed", h)
		}
	}
}

func TestAHolderWhosePidWasReusedIsDead(t *testing.T) {
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	start, _, ok := osx.ProcessStart(pid)
	if !ok {
		t.Skip("the OS does not tell a process's start time")
	}
	f := Fields{Expires: "2026-11-23T02:00:00Z", StartedAt: "2026-11-23T00:00:00Z"}
	f.Holder = "bot@h#" + strconv.Itoa(pid) + "." + start
	if s := Check(f, now, 0, "h"); s.State != Live {
		t.Errorf("the process that wrote the holder: %+v", s)
	}
	f.Holder = "bot@h#" + strconv.Itoa(pid) + ".1" + start
	s := Check(f, now, 0, "h")
	if s.State != Dead || !strings.Contains(s.Why, "now belongs to another process") {
		t.Errorf("a younger process with the same pid: %+v", s)
	}
}

func TestDisplay(t *testing.T) {
	for h, want := range map[string]string{"bot@h.example#12.345": "bot@h.example#12", "bot@h#12": "bot@h#12", "odd": "odd", "a.b@h#7.": "a.b@h#7"} {
		if got := Display(h); got != want {
			t.Errorf("Display(%q) = %q, want %q", h, got, want)
		}
	}
}

func TestHolderNamesThisProcess(t *testing.T) {
	h, ok := parse(Holder("bot@h"))
	if !ok || h.host != "h" || h.pid != os.Getpid() {
		t.Fatalf("%q: %+v", Holder("bot@h"), h)
	}
	if start, _, known := osx.ProcessStart(os.Getpid()); known && h.start != start {
		t.Errorf("start %q, want %q", h.start, start)
	}
}
