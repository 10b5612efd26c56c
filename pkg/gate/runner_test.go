package gate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestRunCommandErrors(t *testing.T) {
	dir := t.TempDir()
	res, err := RunCommand(context.Background(), "build", "true", filepath.Join(dir, "missing"), filepath.Join(dir, "b.log"), 0, nil)
	if err == nil || res.ExitCode != -1 {
		t.Errorf("missing dir: %+v, %v", res, err)
	}
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RunCommand(context.Background(), "build", "true", dir, filepath.Join(blocker, "b.log"), 0, nil); err == nil {
		t.Error("log under a file: no error")
	}
}

func TestRunResultJSON(t *testing.T) {
	b, err := json.Marshal(RunResult{Name: "verify", Command: "x", ExitCode: 2, Duration: time.Second, Seconds: 1, LogPath: "l", Tail: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"verify","command":"x","exit_code":2,"seconds":1,"timed_out":false,"log":"l","tail":["a"]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	v, ok := RunResult{Name: "verify", Command: "make check", ExitCode: 2, LogPath: "q.log"}.Violation()
	if ok || v.Message != "verify command exited with code 2: make check  (log: q.log)" {
		t.Errorf("violation %+v", v)
	}
}
