package remote

import "testing"

func TestPorcelainAndLanded(t *testing.T) {
	out := "To /tmp/o.git\n" +
		" \t3af356e78e2bc99f24c25a220c9810204f4fd9c3:refs/heads/burl\t2986e7d..3af356e\n" +
		"!\tHEAD:refs/heads/main\t[rejected] (fetch first)\n" +
		"*\tabc:refs/heads/task-001-x\t[new branch]\n" +
		"Done\n"
	lines := porcelain(out)
	if len(lines) != 3 {
		t.Fatalf("parsed %d lines, want 3: %#v", len(lines), lines)
	}
	b := lines["refs/heads/burl"]
	if b.flag != ' ' || !landed("3af356e78e2bc99f24c25a220c9810204f4fd9c3", b.summary) {
		t.Errorf("burl line %+v: our commit should have landed", b)
	}
	if landed("ffff356e78e2bc99f24c25a220c9810204f4fd9c3", b.summary) {
		t.Error("another commit must not count as ours")
	}
	if m := lines["refs/heads/main"]; m.flag != '!' || m.summary != "[rejected] (fetch first)" {
		t.Errorf("main line %+v", m)
	}
	if !landed("abc", lines["refs/heads/task-001-x"].summary) {
		t.Error("a new branch created from our commit has landed")
	}
	if landed("abc", "[up to date]") {
		t.Error("up to date is not a landing")
	}
}
