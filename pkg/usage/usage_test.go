package usage

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/claude-code-result.json has the shape Claude Code documents for
// `claude -p --output-format json` ("Run Claude Code programmatically";
// the Agent SDK's result message: total_cost_usd, usage with cache
// counters, modelUsage), printed after a run's other output.
func TestClaudeCodeResultInLog(t *testing.T) {
	doc, err := os.ReadFile("testdata/claude-code-result.json")
	if err != nil {
		t.Fatal(err)
	}
	log := "starting\nsome tool output {\"usage\": not json\n" + string(doc)
	u, err := Scan(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := Usage{InputTokens: 19 + 9712 + 60123, OutputTokens: 1204, CostUSD: 0.0832,
		Model: "claude-sonnet-4-5-20250929", Source: "claude-code"}
	if u != want {
		t.Fatalf("got %+v, want %+v", u, want)
	}
}

// testdata/codex-exec.jsonl follows `codex exec --json` as openai/codex
// documents it (docs/exec.md; exec_events.rs TurnCompletedEvent): one
// turn.completed with usage per turn, summed here.
func TestCodexExecJSONLines(t *testing.T) {
	u, err := FromLog("testdata/codex-exec.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := Usage{InputTokens: 24763 + 26549, OutputTokens: 122 + 1590, Source: "codex"}
	if u != want {
		t.Fatalf("got %+v, want %+v", u, want)
	}
}

func TestNegativeUsageIsNotUsage(t *testing.T) {
	log := `{"type":"turn.completed","usage":{"input_tokens":-5000,"output_tokens":1}}`
	if _, err := Scan(strings.NewReader(log)); !errors.Is(err, ErrNone) {
		t.Fatalf("want ErrNone, got %v", err)
	}
}

func TestLogWithoutUsage(t *testing.T) {
	if _, err := Scan(strings.NewReader("hello\n{\"type\":\"result\"}\n")); !errors.Is(err, ErrNone) {
		t.Fatalf("want ErrNone, got %v", err)
	}
}

func TestLongLineIsSkipped(t *testing.T) {
	long := "{\"usage\":" + strings.Repeat("x", maxLine+10) + "\n"
	doc, _ := os.ReadFile("testdata/claude-code-result.json")
	u, err := Scan(strings.NewReader(long + string(doc)))
	if err != nil || u.OutputTokens != 1204 {
		t.Fatalf("got %+v, %v", u, err)
	}
}

func TestUsageFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "u.json")
	os.WriteFile(p, []byte(`{"input_tokens":100,"output_tokens":20,"cost_usd":0.25,"model":"m"}
{"input_tokens":50,"output_tokens":5,"cost_usd":0.125,"model":"m"}
`), 0o644)
	u, err := FromFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if u.InputTokens != 150 || u.OutputTokens != 25 || u.CostUSD != 0.375 || u.Model != "m" || u.Source != "usage_file" {
		t.Fatalf("got %+v", u)
	}
	os.WriteFile(p, []byte(`{"input_tokens":"lots"}`), 0o644)
	if _, err := FromFile(p); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("malformed file: %v", err)
	}
	os.WriteFile(p, []byte(`{"cost_usd":-1}`), 0o644)
	if _, err := FromFile(p); err == nil {
		t.Fatal("negative cost accepted")
	}
	if _, err := FromFile(filepath.Join(dir, "none")); !errors.Is(err, ErrNone) {
		t.Fatalf("missing file: %v", err)
	}
}

// The agent's own file wins over what the log shows.
func TestOfPrefersTheFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "u.json")
	os.WriteFile(p, []byte(`{"input_tokens":1,"output_tokens":2,"cost_usd":3}`), 0o644)
	u, err := Of(p, "testdata/codex-exec.jsonl")
	if err != nil || u.CostUSD != 3 || u.Source != "usage_file" {
		t.Fatalf("got %+v, %v", u, err)
	}
	u, err = Of(filepath.Join(dir, "none"), "testdata/codex-exec.jsonl")
	if err != nil || u.Source != "codex" {
		t.Fatalf("got %+v, %v", u, err)
	}
}

func TestTable(t *testing.T) {
	tb := Table{}
	tb.Add("a", Usage{InputTokens: 1, CostUSD: 0.1})
	tb.Add("a", Usage{InputTokens: 2, CostUSD: 0.2})
	tb.Add("b", Usage{OutputTokens: 5, CostUSD: 1})
	if s := tb["a"]; s.Runs != 2 || s.InputTokens != 3 || s.CostUSD != 0.3 {
		t.Fatalf("a: %+v", s)
	}
	if s := tb.Total(); s.Runs != 3 || s.CostUSD != 1.3 || s.OutputTokens != 5 {
		t.Fatalf("total: %+v", s)
	}
	if got := (Usage{InputTokens: 1234, OutputTokens: 56, CostUSD: 0.5}).Short(); got != "1.2k in / 56 out, $0.50" {
		t.Fatalf("short: %q", got)
	}
}

func FuzzScan(f *testing.F) {
	doc, _ := os.ReadFile("testdata/claude-code-result.json")
	f.Add(string(doc))
	f.Add(`{"type":"turn.completed","usage":{"input_tokens":1}}`)
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Scan(strings.NewReader(s))
		if err == nil && (!sane(u) || u.Source == "") {
			t.Fatalf("Scan(%q) = %+v: a usage must be non-negative, finite and name its source", s, u)
		}
	})
}
