package events

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func id(s string) *string { return &s }

func TestAppendRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "events") // created on first append
	t0 := time.Date(2026, 1, 13, 10, 0, 0, 0, time.UTC)
	for _, e := range []Event{
		{TS: t0, Action: "init", Actor: "a@h"},
		{TS: t0.Add(time.Minute), Task: id("TASK-001"), Action: "add", Actor: "a@h", Details: map[string]any{"title": "x"}},
		{TS: t0.Add(2 * time.Minute), Task: id("TASK-001"), Action: "claim", Actor: "b@h"},
		{TS: t0.Add(3 * time.Minute), Task: id("TASK-002"), Action: "add", Actor: "a@h"},
	} {
		if _, err := Append(dir, e); err != nil {
			t.Fatal(err)
		}
	}
	evs, bad, err := Read(dir, Filter{})
	if err != nil || bad != 0 || len(evs) != 4 {
		t.Fatalf("Read = %d events, %d bad, %v", len(evs), bad, err)
	}
	if evs[0].Task != nil || evs[0].TaskID() != "" || evs[1].TaskID() != "TASK-001" || evs[1].Details["title"] != "x" {
		t.Errorf("events read back wrong: %+v", evs)
	}

	// The file is NDJSON with the PRD 15.1 keys; task is null for workflow events.
	data, _ := os.ReadFile(Path(dir, t0))
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), data)
	}
	if lines[0] != `{"ts":"2026-01-13T10:00:00Z","task":null,"action":"init","actor":"a@h"}` {
		t.Errorf("line 1 = %s", lines[0])
	}

	for _, c := range []struct {
		f    Filter
		want string
	}{
		{Filter{Task: "TASK-001"}, "add,claim"},
		{Filter{Action: "add"}, "add,add"},
		{Filter{Task: "TASK-001", Action: "add"}, "add"},
		{Filter{Since: t0.Add(2 * time.Minute)}, "claim,add"}, // inclusive
		{Filter{Since: t0.Add(time.Hour)}, ""},
		{Filter{Task: "TASK-404"}, ""},
	} {
		evs, _, _ := Read(dir, c.f)
		var got []string
		for _, e := range evs {
			got = append(got, e.Action)
		}
		if strings.Join(got, ",") != c.want {
			t.Errorf("filter %+v = %v, want %s", c.f, got, c.want)
		}
	}
}

func TestAppendNormalisesTime(t *testing.T) {
	dir := t.TempDir()
	local := time.Date(2026, 1, 13, 12, 0, 0, 987654321, time.FixedZone("CET", 3600))
	if _, err := Append(dir, Event{TS: local, Action: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Append(dir, Event{Action: "now"}); err != nil {
		t.Fatal(err)
	}
	evs, _, _ := Read(dir, Filter{})
	if got := evs[0].TS.Format(time.RFC3339Nano); got != "2026-01-13T11:00:00Z" {
		t.Errorf("ts = %s, want UTC whole seconds", got)
	}
	if time.Since(evs[1].TS) > time.Minute {
		t.Errorf("a zero ts should become now, got %v", evs[1].TS)
	}
}

func TestReadMissing(t *testing.T) {
	evs, bad, err := Read(t.TempDir(), Filter{})
	if evs != nil || bad != 0 || err != nil {
		t.Errorf("missing log = %v %d %v", evs, bad, err)
	}
}

// A broken line (a union merge or a hand edit gone wrong) is skipped and
// counted; it must not hide the history around it.
func TestMalformedLinesSkipped(t *testing.T) {
	dir := t.TempDir()
	content := `{"ts":"2026-01-13T10:00:02Z","task":"TASK-002","action":"add","actor":"a"}
{"ts":"2026-01-13T10:00:0
not json at all

{"ts":"2026-01-13T10:00:01Z","task":"TASK-001","action":"add","actor":"a"}
{"ts":"2026-01-13T10:00:03Z","task":"TASK-003","actor":"no action"}
{"ts":"2026-01-13T10:00:04Z","task":null,"action":"init","actor":"a"}`
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	evs, bad, err := Read(dir, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if bad != 3 {
		t.Errorf("skipped %d lines, want 3", bad)
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.TaskID()+"/"+e.Action)
	}
	// Sorted by time: a union merge interleaves two machines' tails.
	if strings.Join(got, " ") != "TASK-001/add TASK-002/add /init" {
		t.Errorf("events = %v", got)
	}
}

// Many writers appending at once (several burl processes, and the union
// merge that later combines machines) must never produce a torn line.
func TestConcurrentAppendsDoNotInterleave(t *testing.T) {
	dir := t.TempDir()
	const writers, each = 16, 50
	big := strings.Repeat("x", 3000) // larger than one small write, to catch torn writes
	day := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				e := Event{TS: day, Task: id(fmt.Sprintf("TASK-%03d", w+1)), Action: "add", Actor: "t",
					Details: map[string]any{"n": i, "pad": big}}
				if _, err := Append(dir, e); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()

	f, err := os.Open(Path(dir, day))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	seen := map[string]bool{}
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %d is not one event: %v\n%.200s", n+1, err, sc.Text())
		}
		key := fmt.Sprintf("%s/%v", e.TaskID(), e.Details["n"])
		if seen[key] {
			t.Errorf("duplicate %s", key)
		}
		seen[key] = true
		n++
	}
	if n != writers*each {
		t.Errorf("%d lines, want %d", n, writers*each)
	}
	if _, bad, _ := Read(dir, Filter{}); bad != 0 {
		t.Errorf("%d malformed lines after concurrent appends", bad)
	}
}

// Events land in their day's shard; the single file of earlier versions
// is read before the shards, and --since skips whole shards.
func TestShardsAndLegacy(t *testing.T) {
	dir := t.TempDir()
	legacy := `{"ts":"2025-12-31T23:00:00Z","task":"TASK-001","action":"add","actor":"old"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(legacy), 0o644); err != nil {
		t.Fatal(err)
	}
	d1 := time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC)
	d2 := time.Date(2026, 2, 3, 23, 59, 59, 0, time.UTC)
	for _, ts := range []time.Time{d2, d1} {
		p, err := Append(dir, Event{TS: ts, Action: "claim", Task: id("TASK-001")})
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(dir, ts.Format("2006"), ts.Format("01"), ts.Format("2006-01-02")+".ndjson"); p != want {
			t.Errorf("Append wrote %s, want %s", p, want)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "2026", "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	evs, bad, err := Read(dir, Filter{})
	if err != nil || bad != 0 || len(evs) != 3 || evs[0].Actor != "old" || !evs[1].TS.Equal(d1) || !evs[2].TS.Equal(d2) {
		t.Fatalf("Read = %+v, %d bad, %v", evs, bad, err)
	}
	files, _ := Files(dir, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	if len(files) != 2 || files[1] != Path(dir, d2) {
		t.Errorf("Files since February = %v: the legacy file and February's shard", files)
	}
}
