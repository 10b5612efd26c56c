package qa

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A build script kept outside the repository (under /tmp, say) must be
// seen in the gate box; words that are no existing file (a directory
// included) are not paths to bind.
func TestNamedPaths(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "build.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := namedPaths([]string{script + " --fast", "make test", `sh -c "'` + script + `'"`, "/no/such/tool x", "go test -o " + dir, ""})
	want := []string{script, script}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("namedPaths = %q, want %q", got, want)
	}
}
