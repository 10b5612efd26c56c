package bulk

import (
	"reflect"
	"strings"
	"testing"
)

func TestMarkdown(t *testing.T) {
	md := "# Sprint\n\nnotes\n\n## First task\nPriority: high\nAffects-glob: src/**, lib/*.go\nTags: a\n\nDo the thing.\n\n- [ ] it works\n- [ ] it is tested\n\n## Second\nJust text.\n```\n## not a section\n```\n"
	es, err := Parse("plan.md", []byte(md))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 {
		t.Fatalf("%d entries: %+v", len(es), es)
	}
	want := Entry{Title: "First task", Priority: "high", AffectsGlobs: []string{"src/**", "lib/*.go"}, Tags: []string{"a"},
		Description: "Do the thing.", AC: []string{"it works", "it is tested"}, Line: 5}
	if !reflect.DeepEqual(es[0], want) {
		t.Errorf("got %+v\nwant %+v", es[0], want)
	}
	if es[1].Title != "Second" || !strings.Contains(es[1].Description, "## not a section") {
		t.Errorf("second: %+v", es[1])
	}
}

func TestYAMLAndJSON(t *testing.T) {
	for name, data := range map[string]string{
		"t.yaml": "- title: A\n  priority: low\n  affects: [x.go]\n- title: B\n",
		"t.json": `[{"title":"A","priority":"low","affects":["x.go"]},{"title":"B"}]`,
	} {
		es, err := Parse(name, []byte(data))
		if err != nil {
			t.Fatal(name, err)
		}
		if len(es) != 2 || es[0].Title != "A" || es[0].Priority != "low" || es[0].Affects[0] != "x.go" || es[1].Title != "B" {
			t.Errorf("%s: %+v", name, es)
		}
	}
	if _, err := Parse("t.yaml", []byte("- title: A\n  colour: red\n")); err == nil || !strings.Contains(err.Error(), `unknown key "colour"`) {
		t.Errorf("unknown key: %v", err)
	}
	if _, err := Parse("t.yaml", []byte("title: A\n")); err == nil {
		t.Error("a mapping is not a list")
	}
}
