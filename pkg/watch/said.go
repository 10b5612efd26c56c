package watch

import (
	"errors"
	"io"
	"os"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/reason"
)

// said1 is a reason line as watch prints it: whole on a pipe or in a log
// (machine output never cuts a sentence), cut between words with "…" on
// a terminal, where a line longer than the screen wraps into a wall.
func (s *supervisor) said1(line string) string {
	if isTerminal(s.opt.Stderr) {
		return reason.Cut(line, reason.Max)
	}
	return line
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// withFix is err with its fix, in one line.
func withFix(err error) string {
	var e *errs.Error
	if errors.As(err, &e) && e.Fix != "" {
		return err.Error() + "; " + e.Fix
	}
	return err.Error()
}
