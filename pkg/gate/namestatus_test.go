package gate

import (
	"bufio"
	"fmt"
	"io"
)

// The scope gate reads changes off the -U0 patch (ScanDiff). This parser of
// `git diff --name-status -z -M` is the independent oracle its tests
// compare against: two readings of git's output that must agree.

// ParseNameStatus parses the output of `git diff --name-status -z -M <range>`:
// NUL-terminated fields, a status (R and C carry a similarity score, as in
// R100) followed by one path, or by the old and the new path for R and C.
// -z is required because it is the only form in which git prints every
// possible file name (newlines, quotes, non-ASCII) verbatim.
func ParseNameStatus(r io.Reader) ([]Change, error) {
	br := bufio.NewReader(r)
	var changes []Change
	for {
		status, err := readField(br)
		if err == io.EOF {
			return changes, nil
		}
		if err != nil {
			return nil, err
		}
		if !validStatus(status) {
			return nil, fmt.Errorf("name-status entry %d: bad status %q (expected output of git diff --name-status -z)", len(changes)+1, truncate(status, 40))
		}
		c := Change{Status: status[0]}
		paths := []*string{&c.Path}
		if c.Status == 'R' || c.Status == 'C' {
			paths = []*string{&c.OldPath, &c.Path}
		}
		for _, p := range paths {
			f, err := readField(br)
			if err == io.EOF {
				return nil, fmt.Errorf("name-status entry %d (%s): missing path: output truncated", len(changes)+1, status)
			}
			if err != nil {
				return nil, err
			}
			if f == "" {
				return nil, fmt.Errorf("name-status entry %d (%s): empty path", len(changes)+1, status)
			}
			*p = f
		}
		changes = append(changes, c)
	}
}

// readField returns the next NUL-terminated field. A last field without its
// NUL is accepted, since only the terminator is missing, not data.
func readField(br *bufio.Reader) (string, error) {
	f, err := br.ReadString(0)
	if err == io.EOF {
		if f == "" {
			return "", io.EOF
		}
		return f, nil
	}
	if err != nil {
		return "", err
	}
	return f[:len(f)-1], nil
}

// validStatus accepts an uppercase status letter followed by an optional
// score, which git prints for R, C and, with -B, M.
func validStatus(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
