package task

import (
	"encoding/json"
	"testing"
	"time"
)

// AppendFieldsJSON must be exactly json.Marshal(Fields()), fast path or not.
func TestAppendFieldsJSONMatchesFields(t *testing.T) {
	docs := []string{
		string(New(Spec{ID: "TASK-001", Title: "Plain", Priority: "high", Created: time.Unix(1700000000, 0),
			Affects: []string{"a.go", "b/c.go"}, Tags: []string{"x"}}).Bytes()),
		"---\nid: TASK-002\ntitle: \"<quoted> & \\\"odd\\\" é\\u2028\"\nqa_attempts: 007\nn: -12\nz: 0\nbig: 123456789012345678901\nhex: 0x1F\n" +
			"f: 1.5e3\nb: true\nempty:\nlist: [1, two, null]\nmixed:\n  - a\n  - 2\nmap: {k: v, n: [1]}\nts: 2024-01-02\nbucket: READY\npath: x\n" +
			"when: 2024-01-02T03:04:05Z\nneg0: -0\nplus: +5\n---\nbody\n",
	}
	skip := []string{"bucket", "path"}
	for _, d := range docs {
		tk, err := Parse([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		f := tk.Fields()
		for _, k := range skip {
			delete(f, k)
		}
		want, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := tk.AppendFieldsJSON(nil, skip...); string(got) != string(want) {
			t.Fatalf("\ngot  %s\nwant %s", got, want)
		}
	}
}
