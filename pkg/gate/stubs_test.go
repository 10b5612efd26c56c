package gate

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

var defaultPatterns = []string{
	"TODO", "FIXME", "XXX", "HACK", "unimplemented!", "todo!",
	`panic!\s*\(\s*"not implemented`, "NotImplementedError", "raise NotImplemented",
	`^\s*pass\s*$`, `^\s*\.\.\.\s*$`,
}

var defaultExts = []string{"rs", "py", "ts", "js", "tsx", "jsx", "go"}

func mustScanner(t testing.TB, patterns, exts []string) *StubScanner {
	t.Helper()
	s, err := NewStubScanner(patterns, exts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// short renders violations as file:line|text|rule for compact comparison.
func short(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, fmt.Sprintf("%s:%d|%s|%s", v.File, v.Line, v.Text, v.Rule))
	}
	return out
}

func TestNewStubScannerErrors(t *testing.T) {
	_, err := NewStubScanner([]string{"TODO", "a(b"}, nil)
	if err == nil || !strings.Contains(err.Error(), "stub_patterns[1]") || !strings.Contains(err.Error(), `"a(b"`) {
		t.Errorf("bad pattern: err = %v", err)
	}
	if _, err := NewStubScanner([]string{""}, nil); err == nil || !strings.Contains(err.Error(), "stub_patterns[0] is empty") {
		t.Errorf("empty pattern: err = %v", err)
	}
}

func TestMatchLine(t *testing.T) {
	s := mustScanner(t, append(defaultPatterns, `(?i)fixup`, `(?i)task`, `\x{FFFD}`, `x+yz`), nil)
	tests := []struct{ line, want string }{
		{"// TODO: later", "TODO"},
		{"// todo: later", ""},
		{"unimplemented!()", "unimplemented!"},
		{`panic!( "not implemented yet")`, `panic!\s*\(\s*"not implemented`},
		{`panic!("implemented")`, ""},
		{"    pass", `^\s*pass\s*$`},
		{"    pass  \r", `^\s*pass\s*$`},
		{"password = pass", ""},
		{"\t...", `^\s*\.\.\.\s*$`},
		{"x = ...", ""},
		{"raise NotImplementedError", "NotImplementedError"},
		{"a FIXME and a TODO", "TODO"}, // patterns are tried in order
		{"FiXuP later", `(?i)fixup`},
		{"TAS\u212a", `(?i)task`}, // Kelvin sign folds to k: no ASCII prefilter may hide it
		{"ta\u017fk", `(?i)task`}, // long s folds to s
		{"bad \xff byte", `\x{FFFD}`},
		{"xxyz", `x+yz`},
		{"xy z", ""},
	}
	for _, tt := range tests {
		if got := s.MatchLine([]byte(tt.line)); got != tt.want {
			t.Errorf("MatchLine(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func regexpMust(t *testing.T, p string) *regexp.Regexp {
	t.Helper()
	re, err := regexp.Compile(p)
	if err != nil {
		t.Fatal(err)
	}
	return re
}

// TestPrefilterAgreesWithRegexp checks the literal prefilters never change
// what the plain regexps would report.
func TestPrefilterAgreesWithRegexp(t *testing.T) {
	patterns := append(defaultPatterns, `(?i)fixme`, `(?i)kelvin`, `(foo)+bar`, `a{2,}b`, `(?i:Ab)CD`, `x|y`, `[T]ODO`)
	lines := []string{
		"", "TODO", "todo", "FIXME", "fixme", "FiXmE", "\u212aelvin", "KELVIN", "foofoobar", "foobar",
		"bar", "aab", "ab", "abCD", "ABCD", "abcd", "x", "y", "   pass", "pass x", "...", " ... ",
		"panic!(\"not implemented", "todo!()", "unimplemented!", "\xff", "XXX", "HACK", "hack",
	}
	for _, p := range patterns {
		s := mustScanner(t, []string{p}, nil)
		sp := s.pats[0]
		full := sp
		full.lit, full.re = nil, regexpMust(t, p)
		for _, l := range lines {
			if got, want := sp.match([]byte(l)), full.match([]byte(l)); got != want {
				t.Errorf("pattern %q line %q: prefiltered %v, regexp %v (lit %q fold %v)", p, l, got, want, sp.lit, sp.fold)
			}
		}
	}
	// The defaults are what the benchmark relies on being cheap.
	s := mustScanner(t, defaultPatterns, nil)
	for _, sp := range s.pats {
		if sp.lit == nil {
			t.Errorf("default pattern %q has no literal prefilter", sp.src)
		}
		if sp.re != nil && !strings.ContainsAny(sp.src, `\^$`) {
			t.Errorf("literal pattern %q still runs the regexp", sp.src)
		}
	}
}

func TestScanTable(t *testing.T) {
	tests := []struct {
		name string
		diff string
		want []string
		err  string
	}{
		{
			name: "added line that looks like a +++ header is content",
			diff: "diff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\n+++ b/x.go\n" +
				"@@ -1,0 +2,2 @@ func f\n" +
				"+++ b/TODO.go\n" +
				"+-- FIXME\n",
			want: []string{"x.go:2|++ b/TODO.go|TODO", "x.go:3|-- FIXME|FIXME"},
		},
		{
			name: "removed line that looks like a --- header is not a header",
			diff: "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n" +
				"@@ -3 +3 @@\n" +
				"--- a/TODO\n" +
				"+ok // HACK\n",
			want: []string{"x.go:3|ok // HACK|HACK"},
		},
		{
			name: "multiple hunks have their own new line numbers",
			diff: "diff --git a/m.rs b/m.rs\n--- a/m.rs\n+++ b/m.rs\n" +
				"@@ -10,0 +11,2 @@\n+a\n+todo!()\n" +
				"@@ -40 +42 @@ fn x()\n-old\n+new TODO\n" +
				"@@ -90,2 +93,0 @@\n-x\n-y\n" +
				"@@ -100 +101,3 @@\n-z\n+1\n+2\n+XXX\n",
			want: []string{"m.rs:12|todo!()|todo!", "m.rs:42|new TODO|TODO", "m.rs:103|XXX|XXX"},
		},
		{
			name: "context lines count on the new side but are not checked",
			diff: "diff --git a/c.py b/c.py\n--- a/c.py\n+++ b/c.py\n" +
				"@@ -1,4 +1,4 @@\n # TODO old\n-removed TODO\n+    pass\n \n # end\n",
			want: []string{"c.py:2|    pass|^\\s*pass\\s*$"},
		},
		{
			name: "no newline markers do not advance line numbers",
			diff: "diff --git a/n.ts b/n.ts\n--- a/n.ts\n+++ b/n.ts\n" +
				"@@ -7 +7,2 @@\n-bar\n\\ No newline at end of file\n+bar\n+FIXME\n\\ No newline at end of file\n" +
				"diff --git a/o.ts b/o.ts\n--- a/o.ts\n+++ b/o.ts\n" +
				"@@ -1 +1 @@\n-a\n+TODO\n\\ No newline at end of file\n",
			want: []string{"n.ts:8|FIXME|FIXME", "o.ts:1|TODO|TODO"},
		},
		{
			name: "CRLF is stripped before matching and reporting",
			diff: "diff --git a/w.js b/w.js\n--- a/w.js\n+++ b/w.js\n" +
				"@@ -1,0 +2,2 @@\n+  pass\r\n+// TODO\r\n",
			want: []string{"w.js:2|  pass|^\\s*pass\\s*$", "w.js:3|// TODO|TODO"},
		},
		{
			name: "binary and mode-only changes have no hunks",
			diff: "diff --git a/b.rs b/b.rs\nindex 1..2 100644\nBinary files a/b.rs and b/b.rs differ\n" +
				"diff --git a/m.rs b/m.rs\nold mode 100644\nnew mode 100755\n" +
				"diff --git a/n.rs b/n.rs\nnew file mode 100644\nindex 0..1\nBinary files /dev/null and b/n.rs differ\n" +
				"diff --git a/k.rs b/k.rs\n--- a/k.rs\n+++ b/k.rs\n@@ -1 +1 @@\n-a\n+TODO\n",
			want: []string{"k.rs:1|TODO|TODO"},
		},
		{
			name: "deleted file has no added lines",
			diff: "diff --git a/d.rs b/d.rs\ndeleted file mode 100644\nindex 1..0\n--- a/d.rs\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-TODO\n-FIXME\n",
		},
		{
			name: "rename with hunks reports the new path",
			diff: "diff --git a/old.rs b/new.rs\nsimilarity index 80%\nrename from old.rs\nrename to new.rs\nindex 1..2 100644\n--- a/old.rs\n+++ b/new.rs\n@@ -5 +5 @@\n-x\n+x // XXX\n" +
				"diff --git a/c.rs b/d.rs\nsimilarity index 100%\ncopy from c.rs\ncopy to d.rs\n",
			want: []string{"new.rs:5|x // XXX|XXX"},
		},
		{
			name: "quoted and spaced paths",
			diff: "diff --git \"a/sp\\303\\244ce \\\"q\\\".go\" \"b/sp\\303\\244ce \\\"q\\\".go\"\n--- \"a/sp\\303\\244ce \\\"q\\\".go\"\t\n+++ \"b/sp\\303\\244ce \\\"q\\\".go\"\t\n@@ -0,0 +1 @@\n+TODO\n" +
				"diff --git a/with space.go b/with space.go\n--- a/with space.go\t\n+++ b/with space.go\t\n@@ -0,0 +1 @@\n+FIXME\n" +
				"diff --git a/x y.go b/x y.go\n--- a/x y.go\n+++ b/x y.go\n@@ -0,0 +1 @@\n+HACK\n" +
				"diff --git \"a/t\\tn\\nb\\\\.go\" \"b/t\\tn\\nb\\\\.go\"\n--- \"a/t\\tn\\nb\\\\.go\"\n+++ \"b/t\\tn\\nb\\\\.go\"\n@@ -0,0 +1 @@\n+XXX\n",
			want: []string{"späce \"q\".go:1|TODO|TODO", "with space.go:1|FIXME|FIXME", "x y.go:1|HACK|HACK", "t\tn\nb\\.go:1|XXX|XXX"},
		},
		{
			name: "extension filtering is case-insensitive and exact",
			diff: "diff --git a/A.RS b/A.RS\n--- a/A.RS\n+++ b/A.RS\n@@ -0,0 +1 @@\n+TODO\n" +
				"diff --git a/notes.md b/notes.md\n--- a/notes.md\n+++ b/notes.md\n@@ -0,0 +1 @@\n+TODO\n" +
				"diff --git a/Makefile b/Makefile\n--- a/Makefile\n+++ b/Makefile\n@@ -0,0 +1 @@\n+TODO\n" +
				"diff --git a/x.rs.bak b/x.rs.bak\n--- a/x.rs.bak\n+++ b/x.rs.bak\n@@ -0,0 +1 @@\n+TODO\n" +
				"diff --git a/y.pyc b/y.pyc\n--- a/y.pyc\n+++ b/y.pyc\n@@ -0,0 +1 @@\n+TODO\n",
			want: []string{"A.RS:1|TODO|TODO"},
		},
		{
			name: "state resets at the next file",
			diff: "diff --git a/a.rs b/a.rs\n--- a/a.rs\n+++ b/a.rs\n@@ -0,0 +1 @@\n+x\n" +
				"diff --git a/b.md b/b.md\nnew file mode 100644\n--- /dev/null\n+++ b/b.md\n@@ -0,0 +1 @@\n+TODO\n",
		},
		{
			name: "empty context line as stripped by editors",
			diff: "diff --git a/e.rs b/e.rs\n--- a/e.rs\n+++ b/e.rs\n@@ -1,2 +1,3 @@\n\n+TODO\n x\n",
			want: []string{"e.rs:2|TODO|TODO"},
		},
		{name: "empty input"},
		{
			name: "last line without newline",
			diff: "diff --git a/l.rs b/l.rs\n--- a/l.rs\n+++ b/l.rs\n@@ -0,0 +1 @@\n+TODO",
			want: []string{"l.rs:1|TODO|TODO"},
		},
		{
			name: "truncated hunk is an error",
			diff: "diff --git a/t.rs b/t.rs\n--- a/t.rs\n+++ b/t.rs\n@@ -0,0 +1,3 @@\n+a\n",
			err:  "ends inside a hunk",
		},
		{
			name: "added line outside a hunk is an error",
			diff: "diff --git a/t.rs b/t.rs\n--- a/t.rs\n+++ b/t.rs\n@@ -0,0 +1 @@\n+a\n+TODO\n",
			err:  "diff line 6: added line outside a hunk",
		},
		{
			name: "combined diff is an error",
			diff: "diff --cc m.rs\nindex 1,2..3\n--- a/m.rs\n+++ b/m.rs\n@@@ -1,1 -1,1 +1,2 @@@\n++TODO\n",
			err:  "added line outside a hunk",
		},
		{
			name: "hunk before file header",
			diff: "@@ -0,0 +1 @@\n+TODO\n",
			err:  "without a +++ file header",
		},
		{
			name: "malformed hunk header",
			diff: "diff --git a/t.rs b/t.rs\n--- a/t.rs\n+++ b/t.rs\n@@ -0,0 +x @@\n",
			err:  "malformed hunk header",
		},
		{
			name: "bad quoted path",
			diff: "diff --git a/t.rs b/t.rs\n--- a/t.rs\n+++ \"b/t\\9.rs\"\n",
			err:  "bad escape",
		},
		{
			name: "garbage line inside a hunk",
			diff: "diff --git a/t.rs b/t.rs\n--- a/t.rs\n+++ b/t.rs\n@@ -1 +1 @@\n*x\n",
			err:  "unexpected line in hunk",
		},
	}
	s := mustScanner(t, defaultPatterns, []string{"rs", "py", "ts", "js", "go"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Scan(strings.NewReader(tt.diff))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want containing %q (violations %q)", err, tt.err, short(got))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(short(got), tt.want) {
				t.Errorf("got  %q\nwant %q", short(got), tt.want)
			}
		})
	}
}

func TestScanViolationFields(t *testing.T) {
	s := mustScanner(t, defaultPatterns, []string{"rs"})
	long := "    // TODO " + strings.Repeat("é", 300)
	diff := "diff --git a/src/player/jump.rs b/src/player/jump.rs\n--- a/src/player/jump.rs\n+++ b/src/player/jump.rs\n" +
		"@@ -66,0 +67,2 @@\n+        unimplemented!()\n+" + long + "\n"
	got, err := s.Scan(strings.NewReader(diff))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d violations", len(got))
	}
	want0 := Violation{Gate: "stub", File: "src/player/jump.rs", Line: 67, Text: "        unimplemented!()", Rule: "unimplemented!", Message: "src/player/jump.rs:67  + unimplemented!()"}
	if got[0] != want0 {
		t.Errorf("got  %+v\nwant %+v", got[0], want0)
	}
	if v := got[1]; len(v.Text) > maxText+len("…") || !strings.HasSuffix(v.Text, "…") || !strings.HasPrefix(long, strings.TrimSuffix(v.Text, "…")) {
		t.Errorf("long text not capped on a rune boundary: %q", v.Text)
	}
}

// TestScanLongLines checks that lines beyond the reader's buffer are matched
// as a whole, and that long lines that are not checked are skipped correctly.
func TestScanLongLines(t *testing.T) {
	s := mustScanner(t, append([]string{`^a+TODO$`}, defaultPatterns...), []string{"rs"})
	pad := strings.Repeat("a", 100<<10)
	diff := "diff --git a/l.rs b/l.rs\n--- a/l.rs\n+++ b/l.rs\n" +
		"@@ -1,5 +1,5 @@\n" +
		"-" + pad + "TODO\n" + // removed: skipped without assembling
		" " + pad + "\n" +
		"+" + pad + "TODO\n" + // TODO only at the very end: matching must see it
		"+" + pad + "TODO\r\n" +
		"+" + pad + "\n" +
		" x\n" +
		"-y\n-z\n" +
		"diff --git a/m.md b/m.md\n--- a/m.md\n+++ b/m.md\n@@ -0,0 +1,2 @@\n+" + pad + "TODO\n+TODO\n" +
		"diff --git a/z.rs b/z.rs\n--- a/z.rs\n+++ b/z.rs\n@@ -0,0 +1 @@\n+" + pad + "XXX"
	got, err := s.Scan(strings.NewReader(diff))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, v := range got {
		lines = append(lines, fmt.Sprintf("%s:%d %s", v.File, v.Line, v.Rule))
	}
	want := []string{"l.rs:2 ^a+TODO$", "l.rs:3 ^a+TODO$", "z.rs:1 XXX"}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("got %q, want %q", lines, want)
	}
}

func TestScanNoExtensions(t *testing.T) {
	s := mustScanner(t, defaultPatterns, nil)
	got, err := s.Scan(strings.NewReader("diff --git a/a.rs b/a.rs\n--- a/a.rs\n+++ b/a.rs\n@@ -0,0 +1 @@\n+TODO\n"))
	if err != nil || got != nil {
		t.Errorf("got %v, %v; want nothing checked", got, err)
	}
}

// TestScanOnRealGit scans what git prints for the cases the parser must get
// right, including a pre-existing TODO that must not be reported.
func TestScanOnRealGit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file names with quotes")
	}
	g := newGitRepo(t)
	g.write("src/keep.rs", "fn a() {} // TODO old\nfn b() {}\nfn c() {}\n")
	g.write("src/gone.rs", "// FIXME old\n")
	g.write("src/ren.rs", "one\ntwo\nthree\nfour\nfive\n")
	g.write("src/crlf.rs", "a\r\nb\r\n")
	g.write("src/img.rs", "\x00\x01binary")
	g.write("src/mode.rs", "// XXX old\n")
	g.write("src/nonl.rs", "last")
	base := g.commit("base")

	g.write("src/keep.rs", "fn a() {} // TODO old\n++ TODO looks like a header\nfn b() {}\n-- FIXME looks like a removal\nfn c() {}\n")
	g.git("rm", "-q", "src/gone.rs")
	g.git("mv", "src/ren.rs", "src/re named.rs")
	g.write("src/re named.rs", "one\ntwo\nthree\nfour\nfive todo!()\n")
	g.write("src/crlf.rs", "a\r\nHACK\r\nb\r\n")
	g.write("src/img.rs", "\x00\x02TODO binary")
	if err := os.Chmod(filepath.Join(g.dir, "src", "mode.rs"), 0o755); err != nil {
		t.Fatal(err)
	}
	g.write("src/nonl.rs", "last XXX")
	g.write("src/sp\u00e4ce \"q\".rs", "    pass\n")
	g.write("src/notes.md", "TODO\n")
	head := g.commit("work")

	diff := g.git("diff", "-U0", "--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", "-M", base+".."+head)
	s := mustScanner(t, defaultPatterns, defaultExts)
	got, err := s.Scan(bytes.NewReader(diff))
	if err != nil {
		t.Fatalf("%v\n%s", err, diff)
	}
	want := []string{
		"src/crlf.rs:2|HACK|HACK",
		"src/keep.rs:2|++ TODO looks like a header|TODO",
		"src/keep.rs:4|-- FIXME looks like a removal|FIXME",
		"src/nonl.rs:1|last XXX|XXX",
		"src/re named.rs:5|five todo!()|todo!",
		"src/späce \"q\".rs:1|    pass|^\\s*pass\\s*$",
	}
	if !reflect.DeepEqual(short(got), want) {
		t.Errorf("got  %q\nwant %q\ndiff:\n%s", short(got), want, diff)
	}
}

// TestScanConstantMemory streams a large diff through a pipe and checks that
// the scanner's allocations do not grow with the input.
func TestScanConstantMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	const files, linesPerFile = 1000, 200
	s := mustScanner(t, defaultPatterns, defaultExts)
	pr, pw := io.Pipe()
	written := make(chan int64, 1)
	go func() {
		n, err := writeDiff(pw, files, linesPerFile, 7)
		pw.CloseWithError(err)
		written <- n
	}()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := s.Scan(pr)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	n := <-written
	if len(got) != files/7+1 {
		t.Errorf("got %d violations, want %d", len(got), files/7+1)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("input %d bytes, %d added lines; allocated %d bytes, heap in use %d", n, files*linesPerFile, alloc, after.HeapInuse)
	// The reader's buffer, the file names and the violations fit in 1 MiB;
	// holding the input or allocating per line would take tens of MiB.
	if alloc > 1<<20 {
		t.Errorf("allocated %d bytes for %d bytes of input", alloc, n)
	}
	if after.HeapInuse > before.HeapInuse+4<<20 {
		t.Errorf("heap in use grew from %d to %d", before.HeapInuse, after.HeapInuse)
	}
}

// writeDiff writes a -U0 diff of files new files of linesPerFile added lines
// each, with a TODO in every every-th file. It formats into one reused
// buffer, so that its own allocations do not blur the memory test.
func writeDiff(w io.Writer, files, linesPerFile, every int) (int64, error) {
	var n int64
	buf := make([]byte, 0, 64<<10)
	for f := 0; f < files; f++ {
		name := fmt.Appendf(nil, "src/pkg%03d/file%04d.go", f%100, f)
		buf = append(buf[:0], "diff --git a/"...)
		buf = append(append(append(buf, name...), " b/"...), name...)
		buf = append(buf, "\nnew file mode 100644\nindex 0000000..1234567\n--- /dev/null\n+++ b/"...)
		buf = append(append(buf, name...), "\n@@ -0,0 +1,"...)
		buf = append(strconv.AppendInt(buf, int64(linesPerFile), 10), " @@\n"...)
		for l := 0; l < linesPerFile; l++ {
			if f%every == 0 && l == linesPerFile/2 {
				buf = append(buf, "+\t// TODO: this one is real\n"...)
				continue
			}
			buf = strconv.AppendInt(append(buf, "+\tresult"...), int64(l), 10)
			buf = strconv.AppendInt(append(buf, " := computeSomething(input"...), int64(l), 10)
			buf = strconv.AppendInt(append(buf, `, "a string literal of some more length", `...), int64(f), 10)
			buf = append(buf, ") // a note here\n"...)
			if len(buf) > 60<<10 {
				m, err := w.Write(buf)
				n += int64(m)
				if err != nil {
					return n, err
				}
				buf = buf[:0]
			}
		}
		m, err := w.Write(buf)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func BenchmarkScan(b *testing.B) {
	var diff bytes.Buffer
	if _, err := writeDiff(&diff, 2000, 100, 97); err != nil {
		b.Fatal(err)
	}
	s := mustScanner(b, defaultPatterns, defaultExts)
	b.SetBytes(int64(diff.Len()))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		vs, err := s.Scan(bytes.NewReader(diff.Bytes()))
		if err != nil || len(vs) != 21 {
			b.Fatalf("%d violations, %v", len(vs), err)
		}
	}
}

func FuzzScan(f *testing.F) {
	f.Add([]byte("diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1,0 +2,2 @@\n+++ TODO\n+ok\n"))
	f.Add([]byte("diff --git a/x.go b/x.go\n--- a/x.go\n+++ \"b/q\\\"\\303\\244.go\"\t\n@@ -7 +7 @@\n-a\n\\ No newline at end of file\n+TODO\r\n"))
	f.Add([]byte("diff --git a/d.go b/d.go\n--- a/d.go\n+++ /dev/null\n@@ -1 +0,0 @@\n-TODO\n"))
	f.Add([]byte("Binary files a/b.go and b/b.go differ\n@@ -0,0 +1 @@\n+x\n"))
	s := mustScanner(f, defaultPatterns, defaultExts)
	f.Fuzz(func(t *testing.T, in []byte) {
		vs, err := s.Scan(bytes.NewReader(in))
		if err != nil {
			return
		}
		for _, v := range vs {
			if v.Line <= 0 || v.File == "" || v.Rule == "" || v.Gate != "stub" {
				t.Fatalf("bad violation %+v", v)
			}
		}
	})
}
