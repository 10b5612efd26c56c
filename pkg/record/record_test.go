package record

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/burl-dev/burl/pkg/config"
	"github.com/burl-dev/burl/pkg/gate"
	"github.com/burl-dev/burl/pkg/task"
)

func sample() *Record {
	exit := 0
	return &Record{
		Version: Version, Task: "TASK-007", Title: `Parse "quoted" <html> & ünïcode\`, MainBranch: "main",
		Landing: Via{Kind: KindPR, MergeStyle: "squash", How: "squash", PR: &PR{Number: 12, URL: "http://x/pulls/12"}},
		Base:    strings.Repeat("a", 40), Commits: []string{strings.Repeat("b", 40), strings.Repeat("c", 40)},
		Tree: strings.Repeat("d", 40), GatedTree: strings.Repeat("e", 40), Submitted: strings.Repeat("f", 40),
		Gates: Gates{Scope: Gate{Result: Pass, InputsSHA256: strings.Repeat("1", 64)}, Stubs: Gate{Result: Pass},
			Build:  Gate{Result: Pass, Command: "make test", Exit: &exit, Seconds: 1.25, On: strings.Repeat("9", 40)},
			Verify: Gate{Result: None}, Review: &Gate{Result: Pass, Summary: "fine"}},
		Worker: "coder@host", Agent: &Agent{Name: "coder", Preset: "claude-code", Model: "m-1"},
		Attempts: Attempts{Runs: 3, QA: 1}, Cost: &Cost{InputTokens: 1200, OutputTokens: 300, CostUSD: 0.4213},
		ApprovedBy: "ann@box", LandedAt: "2026-11-26T05:00:00Z",
	}
}

// What Encode writes, Parse reads back whole; encoding/json agrees.
func TestEncodeParseRoundTrip(t *testing.T) {
	plain := sample()
	plain.Title = "Parse the config"
	for _, r := range []*Record{sample(), plain, {Version: 1, Task: "TASK-001", Commits: []string{"x"}, Tree: "y"}} {
		note, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(string(note), "}\n") || strings.Count(string(note), "\n") != 1 {
			t.Fatalf("a note is one line of JSON: %q", note)
		}
		got, err := Parse(note)
		if err != nil {
			t.Fatal(err)
		}
		// What verify reads quickly is what decoding says; it declines a
		// note with an escape (the sample's title), and reads the others.
		q, ok := quickSummary(note)
		if ok != !strings.Contains(string(note), `\\`) || ok && !reflect.DeepEqual(q, summarize(got)) {
			t.Fatalf("quickSummary %v %+v, want %+v", ok, q, summarize(got))
		}
		if !reflect.DeepEqual(got, r) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, r)
		}
		var std Record
		if err := json.Unmarshal(note, &std); err != nil || !reflect.DeepEqual(&std, r) {
			t.Fatalf("encoding/json reads %+v (%v)", std, err)
		}
	}
}

// A note that is not a landing record says why.
func TestParseRefuses(t *testing.T) {
	for note, want := range map[string]string{
		"not json":                            "not JSON",
		`{"burl_record":1,"task":`:            "not JSON",
		`[1,2]`:                               "not a landing record",
		`{"task":"TASK-1"}`:                   `no "burl_record"`,
		`{"burl_record":9,"task":"TASK-1"}`:   "version 9",
		`{"burl_record":1,"task":"TASK-1"}`:   "lacks",
		`{"burl_record":1,"task":7}`:          "expected a string",
		`{"burl_record":1} {"burl_record":1}`: "not JSON",
	} {
		_, err := Parse([]byte(note))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q): %v, want %q", note, err, want)
		}
	}
}

// The scanner accepts exactly what encoding/json calls valid, and never
// panics, on any input.
func FuzzWalkJSON(f *testing.F) {
	note, _ := sample().Encode()
	for _, s := range []string{string(note), `{"a":[1,2,{"b":null}],"c":"\u00e9\n"}`, `-0.5e+3`, `"x`, `{"a" 1}`, `[1,]`, `01`, `1.`, "\"\x01\"", `{"\u0061":true}`, `  []  `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := walkJSON(b, func([][]byte, val) error { return nil })
		if valid := json.Valid(b); valid != (err == nil) {
			t.Fatalf("walkJSON(%q): %v; json.Valid: %v", b, err, valid)
		}
		// verify's quick reading of a note says what decoding it says.
		if q, ok := quickSummary(b); ok {
			if r, err := Parse(b); err == nil && !reflect.DeepEqual(q, summarize(r)) {
				t.Fatalf("quickSummary %+v, Parse %+v", q, summarize(r))
			}
		}
		// Whatever it accepts as a record is what encoding/json decodes,
		// for records burl writes.
		if r, err := Parse(b); err == nil {
			again, err := r.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if r2, err := Parse(again); err != nil || !reflect.DeepEqual(r, r2) {
				t.Fatalf("re-encoded record differs: %v", err)
			}
		}
	})
}

// InputsHash is the sha256 of the inputs as jq -cS prints them.
func TestInputsHash(t *testing.T) {
	got := InputsHash(map[string]any{"verify": "make check && ./x <y>"})
	// printf '%s' '{"verify":"make check && ./x <y>"}' | sha256sum
	if want := "aeacc3dad4f64e469e92be8172742e019d61a3511b9f9729a675c80601e311d5"; got != want {
		t.Fatalf("InputsHash = %s, want %s", got, want)
	}
}

// The queue's runs with queue_ci: forge are its build and then the forge's
// checks on the candidate: each is its own gate, the checks with their
// inputs' hash; without checks the record has no checks gate.
func TestGatesOfQueueChecks(t *testing.T) {
	c := config.Default()
	c.BuildCommand, c.CI.Checks = "make test", "required"
	tk := task.New(task.Spec{ID: "TASK-001", Title: "x", Created: time.Now()})
	top := strings.Repeat("9", 40)
	gs := GatesOf(c, tk, []gate.RunResult{
		{Name: "build", Command: "make test", Seconds: 2},
		{Name: "checks", Command: "the forge's checks on burl/queue/1 (checks: required)", Tail: []string{"passed: ci/test, lint"}},
	}, top)
	if gs.Build.Result != Pass || gs.Build.Command != "make test" || gs.Build.On != top {
		t.Fatalf("build gate %+v", gs.Build)
	}
	want := InputsHash(map[string]any{"checks": "required", "ci_timeout": c.CI.Timeout.String()})
	if gs.Checks == nil || gs.Checks.Result != Pass || gs.Checks.Summary != "ci/test, lint" || gs.Checks.On != top || gs.Checks.InputsSHA256 != want {
		t.Fatalf("checks gate %+v, want pass on %s, inputs %s", gs.Checks, top, want)
	}
	if gs := GatesOf(c, tk, []gate.RunResult{{Name: "build", Command: "make test"}}, ""); gs.Checks != nil {
		t.Fatalf("a landing without the forge's checks has a checks gate: %+v", gs.Checks)
	}
}
