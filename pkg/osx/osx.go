// Package osx holds everything that differs between operating systems, each
// behind build tags, so the rest of burl is portable Go.
package osx
