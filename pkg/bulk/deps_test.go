package bulk

import (
	"reflect"
	"strings"
	"testing"
)

func TestDepsByIDAndTitle(t *testing.T) {
	es := []Entry{
		{Title: "Parse the config", ID: "parse"},
		{Title: "Document it", DependsOn: []string{"parse", "TASK-001"}},
		{Title: "Ship", DependsOn: []string{"document IT"}},
	}
	got, err := Deps(es)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Dep{nil, {{Local: 0}, {Local: -1, Ref: "TASK-001"}}, {{Local: 1}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestDepsRefused(t *testing.T) {
	for name, c := range map[string]struct {
		es   []Entry
		want string
	}{
		"self":      {[]Entry{{Title: "A", DependsOn: []string{"a"}}}, "depends on itself"},
		"cycle":     {[]Entry{{Title: "A", DependsOn: []string{"C"}}, {Title: "B", DependsOn: []string{"A"}}, {Title: "C", DependsOn: []string{"B"}}}, `task 1 ("A") → task 3 ("C") → task 2 ("B") → task 1 ("A")`},
		"dup id":    {[]Entry{{Title: "A", ID: "x"}, {Title: "B", ID: "X"}}, `id "X" is task 1's too`},
		"id as ID":  {[]Entry{{Title: "A", ID: "7"}}, "looks like a task ID"},
		"id as ID2": {[]Entry{{Title: "A", ID: "task-7"}}, "looks like a task ID"},
	} {
		if _, err := Deps(c.es); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

func TestMarkdownID(t *testing.T) {
	es, err := Parse("p.md", []byte("## A\nId: a\n\n## B\nDepends-on: a\n"))
	if err != nil {
		t.Fatal(err)
	}
	if es[0].ID != "a" || len(es[1].DependsOn) != 1 || es[1].DependsOn[0] != "a" {
		t.Errorf("%+v", es)
	}
}
