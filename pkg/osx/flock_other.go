//go:build !unix

package osx

// Exclusive cannot lock a file where there is no flock(2): it serialises
// nothing beyond this process, and callers keep their own checks.
func Exclusive(path string) (release func(), err error) { return func() {}, nil }
