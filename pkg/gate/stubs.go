package gate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// StubScanner finds stub patterns (PRD 12.2) in the lines a diff adds. It is
// immutable after construction and safe for concurrent use.
type StubScanner struct {
	pats []stubPattern
	exts map[string]bool // lower case, without the dot
}

// stubPattern is one compiled pattern plus a literal prefilter, because
// running eleven regexps over every added line of a large diff is what would
// make the gate slow, and most lines contain none of the literals.
type stubPattern struct {
	src string
	re  *regexp.Regexp // nil when the literal alone decides a match
	lit []byte         // every match contains it; nil when no literal is known
	// fold makes lit match ASCII-case-insensitively; it is set only when the
	// literal's case variants are all ASCII, so folding bytes is exact.
	fold bool
}

// NewStubScanner compiles patterns (Go RE2 syntax) in order, the first
// matching one being the reported rule. exts are file extensions without the
// dot, compared case-insensitively; with none, no file is checked.
func NewStubScanner(patterns, exts []string) (*StubScanner, error) {
	s := &StubScanner{exts: make(map[string]bool, len(exts))}
	for _, e := range exts {
		if e = strings.ToLower(strings.TrimPrefix(e, ".")); e != "" {
			s.exts[e] = true
		}
	}
	for i, p := range patterns {
		if p == "" {
			return nil, fmt.Errorf("stub_patterns[%d] is empty: it would match every added line", i)
		}
		sp, err := compileStubPattern(p)
		if err != nil {
			return nil, fmt.Errorf("stub_patterns[%d] %q: %w", i, p, err)
		}
		s.pats = append(s.pats, sp)
	}
	return s, nil
}

func compileStubPattern(p string) (stubPattern, error) {
	re, err := regexp.Compile(p)
	if err != nil {
		return stubPattern{}, err
	}
	sp := stubPattern{src: p, re: re}
	// regexp.Compile parses with syntax.Perl, so this parse sees the same tree.
	tree, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return sp, nil
	}
	runes, fold, whole := requiredLiteral(tree.Simplify())
	if len(runes) == 0 || !prefilterable(runes, fold) {
		return sp, nil
	}
	sp.lit, sp.fold = []byte(string(runes)), fold
	if fold {
		sp.lit = bytes.ToLower(sp.lit)
	}
	if whole {
		sp.re = nil
	}
	return sp, nil
}

// requiredLiteral returns a literal that every match of re contains, and
// whether containing it is also sufficient for a match. In a concatenation
// every part must match, so the longest literal among the parts is both
// required and the most selective choice.
func requiredLiteral(re *syntax.Regexp) (lit []rune, fold, whole bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0, true
	case syntax.OpCapture:
		return requiredLiteral(re.Sub[0])
	case syntax.OpPlus:
		lit, fold, _ = requiredLiteral(re.Sub[0])
		return lit, fold, false
	case syntax.OpRepeat:
		if re.Min >= 1 {
			lit, fold, _ = requiredLiteral(re.Sub[0])
		}
		return lit, fold, false
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if l, f, _ := requiredLiteral(sub); len(string(l)) > len(string(lit)) {
				lit, fold = l, f
			}
		}
		return lit, fold, false
	}
	return nil, false, false
}

// prefilterable reports whether byte comparison finds exactly the lines in
// which the regexp engine would see the literal. It would not for
// U+FFFD, which the engine also reads for each invalid UTF-8 byte, nor under
// case folding for runes whose fold orbit leaves ASCII (k and K fold with
// the Kelvin sign, s and S with the long s).
func prefilterable(lit []rune, fold bool) bool {
	for _, r := range lit {
		if r == utf8.RuneError {
			return false
		}
		if !fold {
			continue
		}
		if r >= utf8.RuneSelf {
			return false
		}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f >= utf8.RuneSelf {
				return false
			}
		}
	}
	return true
}

func (p *stubPattern) match(line []byte) bool {
	if p.lit != nil {
		var ok bool
		if p.fold {
			ok = containsFoldASCII(line, p.lit)
		} else {
			ok = bytes.Contains(line, p.lit)
		}
		if !ok {
			return false
		}
	}
	return p.re == nil || p.re.Match(line)
}

// containsFoldASCII reports whether s contains lower (already lower case)
// ignoring ASCII case.
func containsFoldASCII(s, lower []byte) bool {
	c0, c1 := lower[0], lower[0]
	if 'a' <= c0 && c0 <= 'z' {
		c1 = c0 - 'a' + 'A'
	}
	for i := 0; i+len(lower) <= len(s); i++ {
		if b := s[i]; b != c0 && b != c1 {
			continue
		}
		j := 1
		for ; j < len(lower); j++ {
			b := s[i+j]
			if 'A' <= b && b <= 'Z' {
				b += 'a' - 'A'
			}
			if b != lower[j] {
				break
			}
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

// MatchLine reports the first pattern that matches one line (content only,
// without diff marker), or "" if none does. A trailing \r is ignored, as it
// is for added lines in Scan.
func (s *StubScanner) MatchLine(line []byte) string {
	line = trimCR(line)
	for i := range s.pats {
		if s.pats[i].match(line) {
			return s.pats[i].src
		}
	}
	return ""
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

// checks reports whether files named p are scanned.
func (s *StubScanner) checks(p string) bool {
	ext := path.Ext(p)
	return ext != "" && s.exts[strings.ToLower(ext[1:])]
}

// maxText caps Violation.Text: an added line can be a megabyte of minified
// code, and a report needs only enough to find it.
const maxText = 200

// readBufSize is the bufio buffer. A longer line is assembled only when its
// content is needed (a header, or an added line of a checked file), so memory
// is bounded by the longest such line, not by the diff.
const readBufSize = 64 << 10

// Scan reads the output of
//
//	git diff -U0 --no-color --no-ext-diff --no-textconv --src-prefix=a/ --dst-prefix=b/ [-M] <range>
//
// (or --cached) as a stream and returns a violation for every added line of
// a checked file that matches a pattern. Hunk header counts, not line
// prefixes, decide where a hunk ends, so added content that looks like a
// header ("+++ x", "-- x") is still content. Input that breaks the diff
// grammar is an error, never a silent pass: a gate must not be defeated by
// output it misread.
func (s *StubScanner) Scan(r io.Reader) ([]Violation, error) {
	vs, _, err := s.ScanDiff(r)
	return vs, err
}

// ScanDiff is Scan that also returns the files the diff touches, as
// ParseNameStatus would from `git diff --name-status -M` over the same
// range: one git process then feeds both the stub and the scope gate.
// A file section whose path cannot be determined is an error.
func (s *StubScanner) ScanDiff(r io.Reader) ([]Violation, []Change, error) {
	d := diffReader{s: s, br: bufio.NewReaderSize(r, readBufSize)}
	for {
		line, err := d.readLine()
		if err == io.EOF && line == nil {
			break
		}
		if err != nil && err != io.EOF {
			return nil, nil, err
		}
		d.lineNo++
		var perr error
		if d.oldLeft > 0 || d.newLeft > 0 {
			perr = d.hunkLine(line)
		} else {
			perr = d.headerLine(line)
		}
		if perr != nil {
			return nil, nil, fmt.Errorf("diff line %d: %w", d.lineNo, perr)
		}
		if err == io.EOF {
			break
		}
	}
	if d.oldLeft > 0 || d.newLeft > 0 {
		return nil, nil, fmt.Errorf("diff line %d: input ends inside a hunk (%d old and %d new lines missing)", d.lineNo, d.oldLeft, d.newLeft)
	}
	if err := d.endFile(); err != nil {
		return nil, nil, fmt.Errorf("diff line %d: %w", d.lineNo, err)
	}
	return d.out, d.changes, nil
}

// diffReader is the state of one Scan.
type diffReader struct {
	s      *StubScanner
	br     *bufio.Reader
	long   []byte  // assembles lines longer than br's buffer
	first  [1]byte // holds the marker of a long line whose content is skipped
	lineNo int     // of the diff, for errors

	file    string // new path of the current file; "" until its +++ line
	deleted bool   // +++ /dev/null
	checked bool   // file's extension is scanned

	oldLeft, newLeft int // lines still expected in the current hunk
	newLine          int // new-file line number of the next added or context line

	out []Violation

	// The current file section, for the scope gate: its status and its
	// old and new paths, from whichever headers name them.
	inFile           bool
	status           byte
	oldPath, newPath string
	changes          []Change
}

// endFile records the change of the file section just read.
func (d *diffReader) endFile() error {
	if !d.inFile {
		return nil
	}
	d.inFile = false
	c := Change{Status: d.status, Path: d.newPath}
	switch d.status {
	case 'D':
		c.Path = d.oldPath
	case 'R', 'C':
		c.OldPath = d.oldPath
		if c.OldPath == "" {
			return errors.New("a rename or copy without its source path")
		}
	}
	if c.Path == "" {
		return errors.New("a diff section that names no file")
	}
	d.changes = append(d.changes, c)
	return nil
}

// gitLinePaths reads the paths of "diff --git a/X b/Y" when they can be
// told apart: quoted, or the same on both sides (mode-only and binary
// changes, which have no ---/+++ lines). Otherwise later headers name them.
func gitLinePaths(rest []byte) (string, string) {
	if len(rest) > 0 && rest[0] == '"' {
		a, tail, err := scanQuoted(rest)
		if err != nil || len(tail) < 2 || tail[0] != ' ' {
			return "", ""
		}
		b, err := unquotePath(tail[1:])
		if err != nil {
			return "", ""
		}
		return strings.TrimPrefix(a, "a/"), strings.TrimPrefix(b, "b/")
	}
	// "a/X b/X": the same X on both sides, so the split is in the middle.
	n := len(rest)
	if n < 7 || n%2 == 0 || rest[n/2] != ' ' {
		return "", ""
	}
	a, b := rest[:n/2], rest[n/2+1:]
	if !bytes.HasPrefix(a, []byte("a/")) || !bytes.HasPrefix(b, []byte("b/")) || !bytes.Equal(a[2:], b[2:]) {
		return "", ""
	}
	return string(b[2:]), string(b[2:])
}

// readLine returns the next line without its \n, or nil and io.EOF at the
// end. The slice is valid until the next call. When a long line is inside a
// hunk and its content will not be matched, only its first byte is kept.
func (d *diffReader) readLine() ([]byte, error) {
	line, err := d.br.ReadSlice('\n')
	if err == nil {
		return line[:len(line)-1], nil
	}
	if err == io.EOF {
		if len(line) == 0 {
			return nil, io.EOF
		}
		return line, io.EOF
	}
	if err != bufio.ErrBufferFull {
		return nil, err
	}
	inHunk := d.oldLeft > 0 || d.newLeft > 0
	if inHunk && !(line[0] == '+' && d.checked) {
		d.first[0] = line[0]
		for err == bufio.ErrBufferFull {
			_, err = d.br.ReadSlice('\n')
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		return d.first[:], err
	}
	d.long = append(d.long[:0], line...)
	for err == bufio.ErrBufferFull {
		line, err = d.br.ReadSlice('\n')
		d.long = append(d.long, line...)
	}
	switch err {
	case nil:
		return d.long[:len(d.long)-1], nil
	case io.EOF:
		return d.long, io.EOF
	}
	return nil, err
}

func (d *diffReader) hunkLine(line []byte) error {
	marker := byte(' ')
	if len(line) > 0 {
		marker = line[0]
	}
	switch marker {
	case ' ':
		// An empty line counts as context, as in git apply: some editors
		// and mailers strip the lone space of an empty context line.
		if d.oldLeft == 0 || d.newLeft == 0 {
			return errors.New("context line beyond the hunk's line counts")
		}
		d.oldLeft--
		d.newLeft--
		d.newLine++
	case '-':
		if d.oldLeft == 0 {
			return errors.New("removed line beyond the hunk's old line count")
		}
		d.oldLeft--
	case '+':
		if d.newLeft == 0 {
			return errors.New("added line beyond the hunk's new line count")
		}
		d.newLeft--
		if d.checked {
			d.check(line[1:])
		}
		d.newLine++
	case '\\':
		// "\ No newline at end of file" describes the previous line.
	default:
		return fmt.Errorf("unexpected line in hunk: %q", truncate(string(line), 40))
	}
	return nil
}

func (d *diffReader) check(content []byte) {
	content = trimCR(content)
	rule := d.s.MatchLine(content)
	if rule == "" {
		return
	}
	text := string(capText(content))
	d.out = append(d.out, Violation{
		Gate:    "stub",
		File:    d.file,
		Line:    d.newLine,
		Text:    text,
		Rule:    rule,
		Message: fmt.Sprintf("%s:%d  + %s", d.file, d.newLine, strings.TrimSpace(text)),
	})
}

func capText(b []byte) []byte {
	if len(b) <= maxText {
		return b
	}
	n := maxText
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return append(b[:n:n], "…"...)
}

func (d *diffReader) headerLine(line []byte) error {
	line = trimCR(line)
	switch {
	case bytes.HasPrefix(line, []byte("diff ")):
		if err := d.endFile(); err != nil {
			return err
		}
		d.file, d.deleted, d.checked = "", false, false
		d.inFile, d.status = true, 'M'
		d.oldPath, d.newPath = "", ""
		if rest, ok := bytes.CutPrefix(line, []byte("diff --git ")); ok {
			d.oldPath, d.newPath = gitLinePaths(rest)
		}
	case bytes.HasPrefix(line, []byte("new file mode ")):
		d.status = 'A'
	case bytes.HasPrefix(line, []byte("deleted file mode ")):
		d.status = 'D'
	case bytes.HasPrefix(line, []byte("rename from ")), bytes.HasPrefix(line, []byte("copy from ")):
		d.status = 'R'
		if line[0] == 'c' {
			d.status = 'C'
		}
		_, name, _ := bytes.Cut(line, []byte(" from "))
		p, err := unquotePath(name)
		if err != nil {
			return err
		}
		d.oldPath = p
	case bytes.HasPrefix(line, []byte("rename to ")), bytes.HasPrefix(line, []byte("copy to ")):
		_, name, _ := bytes.Cut(line, []byte(" to "))
		p, err := unquotePath(name)
		if err != nil {
			return err
		}
		d.newPath = p
	case bytes.HasPrefix(line, []byte("--- ")):
		if name := line[4:]; string(name) != "/dev/null" {
			p, err := unquotePath(name)
			if err != nil {
				return err
			}
			d.oldPath = strings.TrimPrefix(p, "a/")
		}
	case bytes.HasPrefix(line, []byte("+++ ")):
		name := line[4:]
		if string(name) == "/dev/null" {
			d.file, d.deleted, d.checked = "", true, false
			return nil
		}
		p, err := unquotePath(name)
		if err != nil {
			return err
		}
		p = strings.TrimPrefix(p, "b/")
		if p == "" {
			return errors.New("empty path in +++ line")
		}
		d.file, d.deleted, d.checked = p, false, d.s.checks(p)
		d.newPath = p
	case bytes.HasPrefix(line, []byte("@@ ")):
		oldCount, newStart, newCount, ok := parseHunkHeader(line)
		switch {
		case !ok:
			return fmt.Errorf("malformed hunk header %q", truncate(string(line), 60))
		case d.file == "" && !d.deleted:
			return errors.New("hunk without a +++ file header")
		case newCount > 0 && (d.deleted || newStart == 0):
			return fmt.Errorf("hunk header %q adds lines to no file", truncate(string(line), 60))
		}
		d.oldLeft, d.newLeft, d.newLine = oldCount, newCount, newStart
	case len(line) > 0 && line[0] == '+':
		// Every added line lies inside a counted hunk; one outside means the
		// input is not the diff Scan expects (e.g. a combined diff).
		return fmt.Errorf("added line outside a hunk: %q", truncate(string(line), 40))
	}
	// Anything else (extended headers, "--- a/x", "Binary files ... differ",
	// "\ No newline" after a hunk's last line) carries nothing to check.
	return nil
}

// parseHunkHeader parses "@@ -a[,b] +c[,d] @@..." into b, c and d; an
// omitted count is 1.
func parseHunkHeader(line []byte) (oldCount, newStart, newCount int, ok bool) {
	rest, ok := bytes.CutPrefix(line, []byte("@@ -"))
	if !ok {
		return 0, 0, 0, false
	}
	if _, oldCount, rest, ok = parseRange(rest); !ok {
		return 0, 0, 0, false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(" +")); !ok {
		return 0, 0, 0, false
	}
	if newStart, newCount, rest, ok = parseRange(rest); !ok {
		return 0, 0, 0, false
	}
	if !bytes.HasPrefix(rest, []byte(" @@")) {
		return 0, 0, 0, false
	}
	return oldCount, newStart, newCount, true
}

func parseRange(b []byte) (start, count int, rest []byte, ok bool) {
	if start, b, ok = parseNum(b); !ok {
		return 0, 0, nil, false
	}
	count = 1
	if len(b) > 0 && b[0] == ',' {
		if count, b, ok = parseNum(b[1:]); !ok {
			return 0, 0, nil, false
		}
	}
	return start, count, b, true
}

// parseNum reads a decimal of at most 9 digits, which no real diff exceeds
// and which cannot overflow an int.
func parseNum(b []byte) (n int, rest []byte, ok bool) {
	i := 0
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		if i == 9 {
			return 0, nil, false
		}
		n = n*10 + int(b[i]-'0')
	}
	return n, b[i:], i > 0
}

// unquotePath decodes a path as git prints it in a ---/+++ line. A name
// containing '"', '\\' or a control character (or, with core.quotePath, a
// non-ASCII byte) is C-quoted; a name containing a space is followed by a
// tab for the sake of patch(1). A plain name cannot contain a tab, since git
// would have quoted it, so one trailing tab is always decoration.
func unquotePath(b []byte) (string, error) {
	if len(b) == 0 || b[0] != '"' {
		return string(bytes.TrimSuffix(b, []byte("\t"))), nil
	}
	p, tail, err := scanQuoted(b)
	if err != nil {
		return "", err
	}
	if len(tail) > 0 && string(tail) != "\t" {
		return "", fmt.Errorf("junk after quoted path: %q", truncate(string(b), 60))
	}
	return p, nil
}

// scanQuoted decodes the C-quoted string at the start of b and returns it
// with the bytes after its closing quote.
func scanQuoted(b []byte) (string, []byte, error) {
	var out []byte
	for i := 1; i < len(b); i++ {
		c := b[i]
		switch c {
		case '"':
			return string(out), b[i+1:], nil
		case '\\':
			i++
			if i == len(b) {
				return "", nil, fmt.Errorf("unterminated quoted path: %q", truncate(string(b), 60))
			}
			switch e := b[i]; e {
			case 'a':
				out = append(out, '\a')
			case 'b':
				out = append(out, '\b')
			case 't':
				out = append(out, '\t')
			case 'n':
				out = append(out, '\n')
			case 'v':
				out = append(out, '\v')
			case 'f':
				out = append(out, '\f')
			case 'r':
				out = append(out, '\r')
			case '"', '\\':
				out = append(out, e)
			case '0', '1', '2', '3':
				if i+2 >= len(b) || !isOctal(b[i+1]) || !isOctal(b[i+2]) {
					return "", nil, fmt.Errorf("bad octal escape in quoted path: %q", truncate(string(b), 60))
				}
				out = append(out, (e-'0')<<6|(b[i+1]-'0')<<3|(b[i+2]-'0'))
				i += 2
			default:
				return "", nil, fmt.Errorf("bad escape \\%c in quoted path: %q", e, truncate(string(b), 60))
			}
		default:
			out = append(out, c)
		}
	}
	return "", nil, fmt.Errorf("unterminated quoted path: %q", truncate(string(b), 60))
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }
