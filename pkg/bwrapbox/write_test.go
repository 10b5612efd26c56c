package bwrapbox

import (
	"os"
	"path/filepath"
	"testing"
)

// In a fresh HOME the Go build cache of a machine with go on PATH is made
// (parents included) so a box can hold it writable; a tool not on PATH
// leaves its cache unmade.
func TestDefaultWriteMakesCachesOfToolsOnPath(t *testing.T) {
	home, bin := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("PATH", bin)
	for _, k := range []string{"GOCACHE", "XDG_CACHE_HOME", "GOMODCACHE", "GOPATH"} {
		t.Setenv(k, "")
	}
	DefaultWrite()
	for _, made := range []string{".cache/go-build", "go/pkg/mod"} {
		if fi, err := os.Stat(filepath.Join(home, made)); err != nil || !fi.IsDir() {
			t.Errorf("~/%s not made: %v", made, err)
		}
	}
	for _, absent := range []string{".npm", ".cargo", ".cache/pip"} {
		if _, err := os.Stat(filepath.Join(home, absent)); err == nil {
			t.Errorf("~/%s made though its tool is not on PATH", absent)
		}
	}
}
