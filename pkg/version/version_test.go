package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	for _, c := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, "dev-0123456789ab-dirty"},
	} {
		if got := fromBuildInfo(&c.bi); got != c.want {
			t.Errorf("fromBuildInfo(%+v) = %q, want %q", c.bi.Main, got, c.want)
		}
	}
}

func TestLinkedWins(t *testing.T) {
	old := Version
	defer func() { Version = old }()
	Version = "v9"
	if String() != "v9" {
		t.Fatalf("String() = %q with a linked-in version", String())
	}
}
