// Package version holds the version string, set at build time by the
// Makefile from `git describe` (-ldflags -X), or else read from the build
// info Go records in every binary (`go install ...@v1.2.3`).
package version

import "runtime/debug"

// Version is overwritten by the linker; empty means it was not.
var Version = ""

// String is the linked-in version, else the module version from the build
// info, else the VCS revision the binary was built from, else "dev".
func String() string {
	if Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return fromBuildInfo(bi)
}

func fromBuildInfo(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return "dev"
	}
	return "dev-" + rev + dirty
}
