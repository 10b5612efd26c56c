package gate

import (
	"bytes"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestParseNameStatus(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Change
		err  string
	}{
		{name: "empty", in: ""},
		{
			name: "all kinds",
			in:   "M\x00a.go\x00A\x00dir/new file.go\x00D\x00gone.go\x00R100\x00old.go\x00new.go\x00C075\x00src.go\x00copy.go\x00T\x00link\x00",
			want: []Change{
				{Status: 'M', Path: "a.go"},
				{Status: 'A', Path: "dir/new file.go"},
				{Status: 'D', Path: "gone.go"},
				{Status: 'R', OldPath: "old.go", Path: "new.go"},
				{Status: 'C', OldPath: "src.go", Path: "copy.go"},
				{Status: 'T', Path: "link"},
			},
		},
		{
			name: "names git would quote are verbatim",
			in:   "A\x00new\nline.go\x00M\x00q\"uote\\.go\x00A\x00n\u00ebw \t.go\x00",
			want: []Change{
				{Status: 'A', Path: "new\nline.go"},
				{Status: 'M', Path: "q\"uote\\.go"},
				{Status: 'A', Path: "n\u00ebw \t.go"},
			},
		},
		{name: "missing final NUL", in: "M\x00a.go", want: []Change{{Status: 'M', Path: "a.go"}}},
		{name: "broken-pair score on M", in: "M085\x00a.go\x00", want: []Change{{Status: 'M', Path: "a.go"}}},
		{name: "rename missing new path", in: "R100\x00old.go\x00", err: "missing path"},
		{name: "status without path", in: "M\x00", err: "missing path"},
		{name: "empty path", in: "M\x00\x00", err: "empty path"},
		{name: "not -z output", in: "M\ta.go\nA\tb.go\n", err: "bad status"},
		{name: "lower-case status", in: "m\x00a.go\x00", err: "bad status"},
		{name: "junk after score", in: "R10x\x00a\x00b\x00", err: "bad status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseNameStatus(strings.NewReader(tt.in))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func scopeFiles(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.File+" | "+v.Rule)
	}
	return out
}

func TestCheckScope(t *testing.T) {
	scope := Scope{
		Affects:      []string{"src/player/jump.rs", "src/player/mod.rs", "docs/", "with space/a b.rs", "ünï/cödé.rs"},
		AffectsGlobs: []string{"src/player/**", "tests/**/*_test.go"},
		MustNotTouch: []string{"src/player/secret/**", "**/*.lock"},
	}
	tests := []struct {
		name    string
		changes []Change
		want    []string
	}{
		{name: "no changes"},
		{
			name: "allowed: exact, directory entry, glob, new file under glob",
			changes: []Change{
				{Status: 'M', Path: "src/player/jump.rs"},
				{Status: 'A', Path: "docs/deep/guide.md"},
				{Status: 'A', Path: "src/player/new/dash.rs"},
				{Status: 'A', Path: "tests/unit/x_test.go"},
				{Status: 'A', Path: "tests/x_test.go"},
				{Status: 'M', Path: "with space/a b.rs"},
				{Status: 'M', Path: "ünï/cödé.rs"},
			},
		},
		{
			name: "S2: outside scope",
			changes: []Change{
				{Status: 'M', Path: "src/enemy/ai.rs"},
				{Status: 'A', Path: "docs"},             // the directory entry is docs/, not a file docs
				{Status: 'A', Path: "docsx/a.md"},       // prefix must stop at the slash
				{Status: 'A', Path: "src/player2/x.rs"}, // src/player/** stops at the slash
				{Status: 'M', Path: "with space/a  b.rs"},
				{Status: 'M', Path: "ünï/codé.rs"},
			},
			want: []string{
				"docs | not in affects/affects_globs",
				"docsx/a.md | not in affects/affects_globs",
				"src/enemy/ai.rs | not in affects/affects_globs",
				"src/player2/x.rs | not in affects/affects_globs",
				"with space/a  b.rs | not in affects/affects_globs",
				"ünï/codé.rs | not in affects/affects_globs",
			},
		},
		{
			name: "S1 wins over an allowing glob",
			changes: []Change{
				{Status: 'M', Path: "src/player/secret/key.rs"},
				{Status: 'M', Path: "src/player/Cargo.lock"},
				{Status: 'M', Path: "Cargo.lock"},
			},
			want: []string{
				"Cargo.lock | must_not_touch: **/*.lock",
				"src/player/Cargo.lock | must_not_touch: **/*.lock",
				"src/player/secret/key.rs | must_not_touch: src/player/secret/**",
			},
		},
		{
			name: "rename checks both sides",
			changes: []Change{
				{Status: 'R', OldPath: "src/enemy/ai.rs", Path: "src/player/ai.rs"},
				{Status: 'R', OldPath: "src/player/jump.rs", Path: "src/net/jump.rs"},
				{Status: 'R', OldPath: "src/player/a.rs", Path: "src/player/secret/a.rs"},
			},
			want: []string{
				"src/enemy/ai.rs | not in affects/affects_globs",
				"src/net/jump.rs | not in affects/affects_globs",
				"src/player/secret/a.rs | must_not_touch: src/player/secret/**",
			},
		},
		{
			name: "copy source is not touched",
			changes: []Change{
				{Status: 'C', OldPath: "src/enemy/ai.rs", Path: "src/player/ai.rs"},
			},
		},
		{
			name: "deletions are touches",
			changes: []Change{
				{Status: 'D', Path: "src/enemy/old.rs"},
				{Status: 'D', Path: "src/player/old.rs"},
			},
			want: []string{"src/enemy/old.rs | not in affects/affects_globs"},
		},
		{
			name: "a path touched twice is reported once",
			changes: []Change{
				{Status: 'R', OldPath: "x/a.rs", Path: "src/player/a.rs"},
				{Status: 'A', Path: "x/a.rs"},
			},
			want: []string{"x/a.rs | not in affects/affects_globs"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scopeFiles(CheckScope(scope, tt.changes))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCheckScopeMessagesAndOrder(t *testing.T) {
	scope := Scope{Affects: []string{"src/player/jump.rs"}, MustNotTouch: []string{"src/networking/**"}}
	changes := []Change{
		{Status: 'M', Path: "src/networking/client.rs"},
		{Status: 'M', Path: "src/enemy/ai.rs"},
		{Status: 'M', Path: "src/player/jump.rs"},
	}
	want := []Violation{
		{Gate: "scope", File: "src/enemy/ai.rs", Rule: "not in affects/affects_globs", Message: "src/enemy/ai.rs  (not in affects/affects_globs)"},
		{Gate: "scope", File: "src/networking/client.rs", Rule: "must_not_touch: src/networking/**", Message: "src/networking/client.rs  (matches must_not_touch: src/networking/**)"},
	}
	for i := 0; i < 3; i++ {
		// Every input order gives the same report.
		changes = append(changes[1:], changes[0])
		if got := CheckScope(scope, changes); !reflect.DeepEqual(got, want) {
			t.Fatalf("order %d:\ngot  %+v\nwant %+v", i, got, want)
		}
	}
}

func TestCheckScopeInvalidGlobFailsClosed(t *testing.T) {
	scope := Scope{AffectsGlobs: []string{"src/**", "src/[a"}, MustNotTouch: []string{"secret/{a"}}
	got := CheckScope(scope, []Change{{Status: 'M', Path: "src/x.go"}})
	want := []string{" | affects_globs: src/[a", " | must_not_touch: secret/{a"}
	if !reflect.DeepEqual(scopeFiles(got), want) {
		t.Errorf("got %q, want %q", scopeFiles(got), want)
	}
	if err := scope.Validate(); err == nil || !strings.Contains(err.Error(), `"src/[a"`) || !strings.Contains(err.Error(), `"secret/{a"`) {
		t.Errorf("Validate = %v", err)
	}
	if err := (Scope{AffectsGlobs: []string{"src/**"}}).Validate(); err != nil {
		t.Errorf("Validate of a good scope = %v", err)
	}
}

// TestScopeOnRealGit runs the scope gate on what git itself prints for
// awkward names: spaces, non-ASCII, quotes, a newline, renames and deletions.
func TestScopeOnRealGit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file names with quotes and newlines")
	}
	g := newGitRepo(t)
	g.write("src/player/jump.rs", "fn jump() {}\n")
	g.write("src/enemy/ai.rs", "fn think() {}\nfn act() {}\nfn rest() {}\n")
	g.write("src/net/old.rs", "fn old() {}\n")
	g.write("keep/sp ace.rs", "x\n")
	base := g.commit("base")

	g.write("src/player/jump.rs", "fn jump() { fly() }\n")
	g.write("src/player/new \"q\"\nline.rs", "new\n")
	g.write("src/player/dïr/ñew file.rs", "new\n")
	g.git("mv", "src/enemy/ai.rs", "src/player/ai.rs")
	g.git("rm", "-q", "src/net/old.rs")
	g.git("mv", "keep/sp ace.rs", "keep/sp ace 2.rs")
	g.commit("work")

	out := g.git("diff", "--name-status", "-z", "-M", base+"..HEAD")
	changes, err := ParseNameStatus(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	wantChanges := []Change{
		{Status: 'R', OldPath: "keep/sp ace.rs", Path: "keep/sp ace 2.rs"},
		{Status: 'D', Path: "src/net/old.rs"},
		{Status: 'R', OldPath: "src/enemy/ai.rs", Path: "src/player/ai.rs"},
		{Status: 'A', Path: "src/player/dïr/ñew file.rs"},
		{Status: 'M', Path: "src/player/jump.rs"},
		{Status: 'A', Path: "src/player/new \"q\"\nline.rs"},
	}
	if !reflect.DeepEqual(changes, wantChanges) {
		t.Fatalf("changes:\ngot  %q\nwant %q", changes, wantChanges)
	}

	scope := Scope{
		Affects:      []string{"src/player/jump.rs", "keep/sp ace 2.rs"},
		AffectsGlobs: []string{"src/player/**"},
		MustNotTouch: []string{"src/net/**"},
	}
	got := scopeFiles(CheckScope(scope, changes))
	want := []string{
		"keep/sp ace.rs | not in affects/affects_globs",
		"src/enemy/ai.rs | not in affects/affects_globs",
		"src/net/old.rs | must_not_touch: src/net/**",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestOverlap(t *testing.T) {
	tests := []struct {
		name   string
		a, b   Scope
		want   bool
		reason string
	}{
		{name: "empty scopes", a: Scope{}, b: Scope{Affects: []string{"a"}}},
		{name: "same path", a: Scope{Affects: []string{"x.go", "a/b.go"}}, b: Scope{Affects: []string{"a/b.go"}}, want: true, reason: "a/b.go (affects) overlaps a/b.go (affects)"},
		{name: "different paths", a: Scope{Affects: []string{"a/b.go"}}, b: Scope{Affects: []string{"a/c.go", "a/b.go.orig"}}},
		{name: "path in directory entry", a: Scope{Affects: []string{"docs/"}}, b: Scope{Affects: []string{"docs/x.md"}}, want: true, reason: "docs/ (affects) overlaps docs/x.md (affects)"},
		{name: "directory entry stops at slash", a: Scope{Affects: []string{"doc/"}}, b: Scope{Affects: []string{"docs/x.md"}}},
		{name: "nested directories", a: Scope{Affects: []string{"a/b/"}}, b: Scope{Affects: []string{"a/"}}, want: true},
		{name: "path matched by glob", a: Scope{Affects: []string{"src/p/jump.rs"}}, b: Scope{AffectsGlobs: []string{"src/**/*.rs"}}, want: true, reason: "src/p/jump.rs (affects) overlaps src/**/*.rs (affects_globs)"},
		{name: "path not matched by glob", a: Scope{Affects: []string{"src/p/jump.go"}}, b: Scope{AffectsGlobs: []string{"src/**/*.rs"}}},
		{name: "disjoint glob prefixes", a: Scope{AffectsGlobs: []string{"src/player/**"}}, b: Scope{AffectsGlobs: []string{"src/enemy/**", "src/play*/x"}}, want: true, reason: "src/player/** (affects_globs) overlaps src/play*/x (affects_globs)"},
		{name: "sibling prefixes do not nest", a: Scope{AffectsGlobs: []string{"src/player/**"}}, b: Scope{AffectsGlobs: []string{"src/player2/**"}}},
		{name: "nesting glob prefixes", a: Scope{AffectsGlobs: []string{"src/**"}}, b: Scope{AffectsGlobs: []string{"src/player/*.rs"}}, want: true},
		{name: "leading ** overlaps everything", a: Scope{AffectsGlobs: []string{"**/*.md"}}, b: Scope{AffectsGlobs: []string{"src/**/*.rs"}}, want: true},
		{name: "glob vs directory entry", a: Scope{Affects: []string{"src/player/"}}, b: Scope{AffectsGlobs: []string{"src/*/ai.rs"}}, want: true},
		{name: "glob vs unrelated directory entry", a: Scope{Affects: []string{"docs/"}}, b: Scope{AffectsGlobs: []string{"src/*/ai.rs"}}},
		{name: "literal glob is a path", a: Scope{AffectsGlobs: []string{"src/a.rs"}}, b: Scope{Affects: []string{"src/a.rs"}}, want: true},
		{name: "invalid glob overlaps", a: Scope{AffectsGlobs: []string{"src/[a"}}, b: Scope{Affects: []string{"docs/x"}}, want: true},
		{name: "must_not_touch is not scope", a: Scope{MustNotTouch: []string{"**"}}, b: Scope{MustNotTouch: []string{"**"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := Overlap(tt.a, tt.b)
			if got != tt.want {
				t.Fatalf("Overlap = %v (%q), want %v", got, reason, tt.want)
			}
			if got2, _ := Overlap(tt.b, tt.a); got2 != got {
				t.Errorf("Overlap is not symmetric")
			}
			if tt.reason != "" && reason != tt.reason {
				t.Errorf("reason = %q, want %q", reason, tt.reason)
			}
			if got && reason == "" || !got && reason != "" {
				t.Errorf("reason %q does not fit %v", reason, got)
			}
		})
	}
}

func FuzzParseNameStatus(f *testing.F) {
	f.Add([]byte("M\x00a.go\x00R100\x00old\x00new\x00"))
	f.Add([]byte("A\x00new\nline\x00D\x00x"))
	f.Add([]byte("C075\x00a\x00b\x00M\x00"))
	f.Fuzz(func(t *testing.T, in []byte) {
		changes, err := ParseNameStatus(bytes.NewReader(in))
		if err != nil {
			return
		}
		// Whatever parses must round-trip through git's format.
		var buf bytes.Buffer
		for _, c := range changes {
			if c.Path == "" || (c.Status == 'R' || c.Status == 'C') != (c.OldPath != "") {
				t.Fatalf("bad change %+v", c)
			}
			buf.WriteString(string(c.Status) + "\x00")
			if c.OldPath != "" {
				buf.WriteString(c.OldPath + "\x00")
			}
			buf.WriteString(c.Path + "\x00")
		}
		again, err := ParseNameStatus(&buf)
		if err != nil || !reflect.DeepEqual(again, changes) {
			t.Fatalf("round trip: %+v, %v; want %+v", again, err, changes)
		}
		_ = CheckScope(Scope{Affects: []string{"a"}, AffectsGlobs: []string{"**/*.go"}, MustNotTouch: []string{"x/**"}}, changes)
	})
}

func TestCheckScopeReservedWhateverTheScope(t *testing.T) {
	s := Scope{AffectsGlobs: []string{"**"}, Reserved: []string{".burl", ".worktrees"}}
	vs := CheckScope(s, []Change{{Status: 'A', Path: ".burl/.workflow/READY/TASK-900-x.md"}, {Status: 'A', Path: "src/a.go"}, {Status: 'R', OldPath: ".Worktrees/t/a", Path: "src/b.go"}})
	if len(vs) != 2 || vs[0].File != ".Worktrees/t/a" || vs[1].File != ".burl/.workflow/READY/TASK-900-x.md" || vs[0].Rule != RuleReserved {
		t.Fatalf("violations: %+v", vs)
	}
}
