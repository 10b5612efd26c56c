package gitx

import "strings"

// ValidBranch reports whether name is a short branch name burl may pass
// to git: git's check-ref-format rules for a branch, plus burl's own
// (no "refs/" prefix, which git would nest as refs/heads/refs/heads/...,
// and no leading "-", which git would read as an option). Values from the
// workflow branch are untrusted input: anything else is refused before
// it reaches an argv.
func ValidBranch(name string) bool {
	if name == "" || len(name) > 255 || name == "HEAD" || name == "@" ||
		strings.HasPrefix(name, "-") || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") ||
		strings.HasSuffix(name, ".") || strings.HasPrefix(name, "refs/") ||
		strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{") {
		return false
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return false
		}
	}
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") || strings.HasSuffix(part, ".lock") {
			return false
		}
	}
	return true
}

// ValidObjectID reports a full object id in hex (SHA-1 or SHA-256), the
// only form burl records: an abbreviation or a revision expression could
// name another commit, and one starting with "-" would be an option.
func ValidObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// HasControl reports a control character (a newline, an escape ...): no
// name or path burl uses may hold one; it would break git's line-based
// output and forge lines in a terminal.
func HasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return true
		}
	}
	return false
}
