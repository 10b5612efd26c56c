package agents

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseDefaultsAndValues(t *testing.T) {
	f, err := Parse("agents.yaml", []byte(`auto_approve: true
agents:
  - name: coder
    command: ["claude", "-p", "@{prompt_file}"]
  - name: tester
    command: [sh, run.sh]
    max_parallel: 3
    timeout: 90s
    retries: 0
    tags: [test]
    env: {FOO: bar}
`))
	if err != nil {
		t.Fatal(err)
	}
	if !f.AutoApprove || len(f.Agents) != 2 {
		t.Fatalf("got %+v", f)
	}
	a := f.Agents[0]
	if a.MaxParallel != DefaultMaxParallel || a.Timeout != DefaultTimeout || a.Retries != DefaultRetries || a.Command[2] != "@{prompt_file}" {
		t.Errorf("defaults: %+v", a)
	}
	b := f.Agents[1]
	if b.MaxParallel != 3 || b.Timeout != 90*time.Second || b.Retries != 0 || b.Tags[0] != "test" || b.Env["FOO"] != "bar" {
		t.Errorf("values: %+v", b)
	}
}

func TestParseErrorsNameFileKeyLine(t *testing.T) {
	for _, c := range []struct {
		yaml, key string
		line      int
	}{
		{"agents:\n  - name: a\n    command: \"claude -p x\"\n", "agents.command", 3},
		{"agents:\n  - name: a\n    command: [x]\n    retries: lots\n", "agents.retries", 4},
		{"agents:\n  - name: a\n    command: [x]\n    max_parallel: 0\n", "agents.max_parallel", 4},
		{"agents:\n  - name: a\n    command: [x]\n    timeout: 5\n", "agents.timeout", 4},
		{"agents:\n  - name: a\n    command: [x]\n    timout: 5m\n", "agents.timout", 4},
		{"agents:\n  - name: a\n    command: [x]\n  - name: a\n    command: [y]\n", "agents.name", 4},
		{"agents:\n  - command: [x]\n", "agents.name", 2},
		{"auto_approve: yes please\nagents:\n  - name: a\n    command: [x]\n", "auto_approve", 1},
		{"agent:\n  - name: a\n", "agent", 1},
		{"agents:\n  - name: a\n    command: [x, [y]]\n", "agents.command", 3},
		{"agents: []\n", "agents", 1},
	} {
		_, err := Parse("w/agents.yaml", []byte(c.yaml))
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: want *Error, got %v", c.yaml, err)
			continue
		}
		if e.Key != c.key || e.Line != c.line || !strings.HasPrefix(err.Error(), "w/agents.yaml:") {
			t.Errorf("%q: got key %q line %d (%v), want %q line %d", c.yaml, e.Key, e.Line, err, c.key, c.line)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("agents:\n  - name: a\n    command: [x]\n"))
	f.Add([]byte("auto_approve: true\nagents: [{name: b, command: [y], env: {A: b}}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("agents.yaml", data)
		if err == nil && (len(file.Agents) == 0 || file.Agents[0].Name == "" || len(file.Agents[0].Command) == 0) {
			t.Fatalf("accepted an incomplete file: %+v", file)
		}
	})
}
