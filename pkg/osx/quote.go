package osx

import "strings"

// ShellQuote is s as a POSIX shell reads it back as one word: as is when
// it holds only characters no shell treats specially, else in single
// quotes. For commands shown to a human to copy, never for running.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-+=:,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
