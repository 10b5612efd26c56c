package stats

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestMedian(t *testing.T) {
	if median(nil) != nil {
		t.Fatal("median of nothing is not null")
	}
	for _, c := range []struct {
		in   []float64
		want float64
	}{{[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{7}, 7}} {
		if got := *median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// A log with a line that is no event, events of no task and an approved
// review still counts what it should.
func TestComputeSkipsWhatIsNoTaskEvent(t *testing.T) {
	dir := t.TempDir()
	log := `{"ts":"2026-11-27T10:00:00Z","task":null,"action":"init","actor":"h","details":{}}
not json
{"ts":"2026-11-27T10:00:01Z","task":"TASK-001","action":"add","actor":"h","details":{}}
{"ts":"2026-11-27T10:00:02Z","task":"TASK-001","action":"claim","actor":"a@x","details":{"to":"DOING"}}
{"ts":"2026-11-27T10:00:03Z","task":"TASK-001","action":"run_start","actor":"a@x","details":{"agent":"a"}}
{"ts":"2026-11-27T10:00:04Z","task":"TASK-001","action":"submit","actor":"a@x","details":{"to":"QA"}}
{"ts":"2026-11-27T10:00:05Z","task":"TASK-001","action":"run_end","actor":"a@x","details":{"agent":"a","result":"submitted","usage":{"cost_usd":0.5}}}
{"ts":"2026-11-27T10:00:06Z","task":"TASK-001","action":"review","actor":"watch@x","details":{"verdict":"approve"}}
{"ts":"2026-11-27T10:00:09Z","task":"TASK-001","action":"approve","actor":"watch@x","details":{"to":"DONE","merged_sha":"x"}}
`
	if err := os.WriteFile(filepath.Join(dir, "events.ndjson"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Compute(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tot := r.Total
	if tot.Landed != 1 || tot.FirstPass != 1 || tot.HumanTouches != 0 || tot.SpendUSD != 0.5 || *tot.MedianClaimToLandedS != 7 || *tot.MedianReadyToLandedS != 8 {
		t.Errorf("total = %+v", tot)
	}
}

// decode reads what encoding/json reads, on lines as burl writes them and
// on ones it does not.
func TestDecodeAgreesWithEncodingJSON(t *testing.T) {
	for _, l := range []string{
		`{"ts":"2026-11-27T23:25:06Z","task":"TASK-002","action":"run_end","actor":"bob@vm","details":{"agent":"bob","attempt":1,"duration_ms":126,"exit":1,"holder":"bob@vm#1.2","log":"x.log","result":"failed","usage":{"input_tokens":10,"output_tokens":5,"cost_usd":0.05,"model":"m-b","source":"usage_file"}}}`,
		`{"ts":"2026-11-27T23:25:07Z","task":"TASK-003","action":"edit","actor":"t@b","details":{"changes":[{"field":"priority","from":"low","to":"DONE \"x\" }"}],"from":"READY","to":"READY"}}`,
		`{"ts":"2026-11-27T23:25:07Z","task":"TASK-00\u0034","action":"cancel","actor":"t@b","details":{"from":"QA","reason":"a \"quoted\" {reason}","resolution":"cancelled","to":"DONE"}}`,
		`{"ts":"2026-11-27T23:25:07Z","task":null,"action":"init","actor":"t@b","details":{}}`,
		`{"ts": "2026-11-27T23:25:07Z", "task": "TASK-001", "action": "review", "actor": "watch@h", "details": {"verdict": "request_changes"}}`,
	} {
		var got, want event
		if !decode([]byte(l), &got, names{}) {
			t.Errorf("decode refused %s", l)
			continue
		}
		if err := json.Unmarshal([]byte(l), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s\n got %+v\nwant %+v", l, got, want)
		}
	}
	for _, bad := range []string{"not json", `{"ts":"x"`, `{"action":"add","details":{"to":"DONE"`, ""} {
		var e event
		if decode([]byte(bad), &e, names{}) {
			t.Errorf("decode took %q", bad)
		}
	}
}
