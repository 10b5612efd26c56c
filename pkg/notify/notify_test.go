package notify

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/events"
)

func ev(action, id string) events.Event {
	return events.Event{TS: time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC), Task: &id, Action: action, Actor: "a@h",
		Details: map[string]any{"reason": "because"}}
}

func TestOnlyListedActionsReachTheCommandWithTheEventOnStdin(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "got")
	ns := []config.Notifier{{On: []string{"block", "approve"}, Command: []string{"sh", "-c", "cat >>" + out}}}
	var warn bytes.Buffer
	Run(ns, []events.Event{ev("claim", "TASK-001"), ev("block", "TASK-002"), ev("approve", "TASK-003")}, dir, dir, nil, &warn)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || warn.Len() != 0 {
		t.Fatalf("got %q, warnings %q", data, warn.String())
	}
	var e events.Event
	if err := json.Unmarshal([]byte(lines[0]), &e); err != nil || e.Action != "block" || e.TaskID() != "TASK-002" || e.Details["reason"] != "because" {
		t.Fatalf("first: %q %v", lines[0], err)
	}
}

func TestFailingAndHangingNotifiersAreReportedNotFatal(t *testing.T) {
	old := Timeout
	Timeout = 300 * time.Millisecond
	defer func() { Timeout = old }()
	dir := t.TempDir()
	ns := []config.Notifier{
		{On: []string{"block"}, Command: []string{"sh", "-c", "exit 3"}},
		{On: []string{"block"}, Command: []string{"sh", "-c", "sleep 30"}},
		{On: []string{"block"}, Command: []string{filepath.Join(dir, "missing")}},
	}
	var warn bytes.Buffer
	began := time.Now()
	Run(ns, []events.Event{ev("block", "TASK-001")}, dir, dir, nil, &warn)
	if d := time.Since(began); d > 5*time.Second {
		t.Fatalf("took %s", d)
	}
	w := warn.String()
	for _, want := range []string{"exit status 3", "killed after the timeout", "missing"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, LogName))
	if !strings.Contains(string(log), "killed after the timeout") {
		t.Errorf("log:\n%s", log)
	}
}
