package task

import (
	"github.com/burl-dev/burl/pkg/gitx"

	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/burl-dev/burl/pkg/errs"
)

// FormatID renders the n-th task's ID: three digits, growing past 999.
func FormatID(n int) string { return fmt.Sprintf("TASK-%03d", n) }

// IDNumber returns n for a well-formed ID "TASK-n" (3 to 9 digits). It is
// on the path of every file name of every bucket listing: no regexp.
func IDNumber(id string) (int, bool) {
	digits, ok := strings.CutPrefix(id, "TASK-")
	if !ok || len(digits) < 3 || len(digits) > 9 || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}

// NormalizeID accepts what a user types for a task ("TASK-001", "task-001",
// "001", "1") and returns the canonical ID. Anything else, above all a path
// such as "../x" or "/etc/passwd", is rejected before it can reach the
// filesystem.
func NormalizeID(s string) (string, error) {
	in := strings.TrimSpace(s)
	digits := in
	if len(in) > 5 && strings.EqualFold(in[:5], "TASK-") {
		digits = in[5:]
	}
	if digits == "" || len(digits) > 9 || strings.Trim(digits, "0123456789") != "" {
		return "", errs.New(errs.User, "%q is not a task ID", s).
			WithFix("task IDs look like TASK-001 (or just 1); see git burl status")
	}
	n, _ := strconv.Atoi(digits)
	if n == 0 {
		return "", errs.New(errs.User, "%q is not a task ID (numbering starts at TASK-001)", s)
	}
	return FormatID(n), nil
}

// NextID is one past the highest ID in use.
func NextID(ids []string) string {
	max := 0
	for _, id := range ids {
		if n, ok := IDNumber(id); ok && n > max {
			max = n
		}
	}
	return FormatID(max + 1)
}

// Slug makes a short, filesystem- and branch-safe name from a title.
func Slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		default:
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
				dash = true
			}
		}
		if b.Len() >= 40 {
			break
		}
	}
	s := strings.Trim(b.String(), "-")
	if len(s) > 40 {
		s = strings.TrimRight(s[:40], "-")
	}
	if s == "" {
		return "task"
	}
	return s
}

// FileName is the task file's name: TASK-001-<slug>.md.
func FileName(id, slug string) string { return id + "-" + slug + ".md" }

// IDFromFileName extracts the ID from "TASK-001-slug.md" (or "TASK-001.md"),
// in canonical form: a hand-made "TASK-7-x.md" or "TASK-0007-x.md" is
// TASK-007, so the task is found by the ID a user types and its file is
// checked (and reported) like any other instead of being skipped unseen
// or listed under an ID no command accepts.
func IDFromFileName(name string) (string, bool) {
	if !strings.HasSuffix(name, ".md") || !strings.HasPrefix(name, "TASK-") {
		return "", false
	}
	stem := strings.TrimSuffix(name, ".md")
	end := 5
	for end < len(stem) && stem[end] >= '0' && stem[end] <= '9' {
		end++
	}
	if end == 5 || end-5 > 9 || end < len(stem) && stem[end] != '-' {
		return "", false
	}
	n, _ := strconv.Atoi(stem[5:end])
	if n == 0 {
		return "", false
	}
	return FormatID(n), true
}

// BranchName is the task's branch: task-001-<slug>.
func BranchName(id, slug string) string { return strings.ToLower(id) + "-" + slug }

// CheckRelPath refuses a path from a task file that could point outside the
// repository: absolute paths, drive letters, backslashes and ".." segments.
func CheckRelPath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("empty path")
	case gitx.HasControl(p):
		return fmt.Errorf("path %q contains a control character (a newline, an escape ...)", p)
	case strings.HasPrefix(p, "/") || strings.Contains(p, `\`) || len(p) > 1 && p[1] == ':':
		return fmt.Errorf("path %q must be relative to the repository root, with / separators", p)
	}
	for _, seg := range strings.Split(path.Clean(p), "/") {
		if seg == ".." {
			return fmt.Errorf("path %q leaves the repository (..)", p)
		}
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return fmt.Errorf("path %q leaves the repository (..)", p)
		}
	}
	return nil
}
