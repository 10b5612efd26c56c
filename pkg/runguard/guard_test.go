package runguard

import (
	"reflect"
	"testing"
)

func TestConfigDiffNamesWhatChangedButBranchSections(t *testing.T) {
	was := "[core]\n\tbare = false\n[branch \"task-1\"]\n\tremote = origin\n[remote \"origin\"]\n\turl = /o\n"
	is := "[core]\n\tbare = false\n\thooksPath = /tmp/evil\n[branch \"task-2\"]\n\tremote = origin\n[remote \"origin\"]\n\turl = /elsewhere\n"
	got := configDiff(was, is)
	want := []string{"core.hookspath", "remote.origin.url"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("configDiff = %q, want %q", got, want)
	}
	if d := configDiff(was, was+"[branch \"task-3\"]\n\tmerge = refs/heads/x\n"); len(d) != 0 {
		t.Fatalf("a new branch section counted: %q", d)
	}
}
