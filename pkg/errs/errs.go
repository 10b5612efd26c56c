// Package errs holds burl's error values. Every failure a user can see
// carries a Kind, and the Kind alone decides the process exit code, so the
// PRD's exit-code contract (13.2) lives in exactly one place.
package errs

import (
	"errors"
	"fmt"
)

// Kind classifies a failure; its value is the process exit code.
type Kind int

const (
	// User is bad arguments or an operation that is invalid in the current state.
	User Kind = 1
	// Validation is a gate failure: scope, stubs, build or verify.
	Validation Kind = 2
	// Git is a git command that failed.
	Git Kind = 3
	// Lock is a lock that could not be taken, or a race lost to another process or machine.
	Lock Kind = 4
)

func (k Kind) String() string {
	switch k {
	case User:
		return "user"
	case Validation:
		return "validation"
	case Git:
		return "git"
	case Lock:
		return "lock"
	}
	return "internal"
}

// Error is a user-facing failure: what went wrong, where, and how to fix it.
type Error struct {
	Kind       Kind
	Title      string // one line: "Cannot claim TASK-001"
	Reason     string // why, may span lines
	Fix        string // what to run or change
	Violations any    // gate violations, rendered in --json and by the CLI
	Err        error  // the underlying cause, if any
}

func (e *Error) Error() string {
	msg := e.Title
	if e.Reason != "" {
		if msg != "" {
			msg += ": "
		}
		msg += e.Reason
	}
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// New builds an error of the given kind with a formatted reason.
func New(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Reason: fmt.Sprintf(format, args...)}
}

// WithFix returns e with the remedy set; it reads well at the call site.
func (e *Error) WithFix(format string, args ...any) *Error {
	e.Fix = fmt.Sprintf(format, args...)
	return e
}

// WithTitle returns e with its headline set.
func (e *Error) WithTitle(format string, args ...any) *Error {
	e.Title = fmt.Sprintf(format, args...)
	return e
}

// KindOf reports the kind of err: the kind of the first *Error in its chain,
// Git for a git failure that nobody classified, User otherwise.
func KindOf(err error) Kind {
	if err == nil {
		return 0
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	var k interface{ ErrKind() Kind }
	if errors.As(err, &k) {
		return k.ErrKind()
	}
	return User
}

// Wrap gives err a headline (kept from the deepest *Error otherwise).
func Wrap(err error, k Kind, title string) *Error {
	var e *Error
	if errors.As(err, &e) {
		c := *e
		if c.Title == "" {
			c.Title = title
		}
		return &c
	}
	return &Error{Kind: k, Title: title, Reason: err.Error(), Err: err}
}
