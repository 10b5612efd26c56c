package repo

import (
	"os"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
)

// A repository config changed between the read of the settings and the
// seed keeps nothing: the answer would be the old config's under the new
// one's key.
func TestSeedKeepsNothingForAConfigChangedMeanwhile(t *testing.T) {
	root := gittest.NewRepo(t)
	settings := []OriginSetting{{Origin: "file:.git/config", Key: "burl.branch", Value: "flow"}}
	env := append(os.Environ(), "GIT_CONFIG_COUNT=0")
	d := found{}
	d.common, d.top, d.ok = discover(root)

	seed := SeedBootstrap(root)
	seed(env, settings)
	if out, ok := keptBootstrap(d, bootstrapKeyIn(d, env)); !ok || out != "file:.git/config\tburl.branch flow" {
		t.Fatalf("kept %q %v", out, ok)
	}
	if err := os.Remove(bootstrapFile(d)); err != nil {
		t.Fatal(err)
	}
	seed = SeedBootstrap(root)
	gittest.Git(t, root, "config", "burl.branch", "other")
	seed(env, settings)
	if out, ok := keptBootstrap(d, bootstrapKeyIn(d, env)); ok {
		t.Fatalf("kept %q for a config changed after the read", out)
	}
}
