package trust

import "testing"

func TestChecksLevelsOrderTheGate(t *testing.T) {
	for _, c := range []struct {
		was, is string
		lowered bool
	}{
		{"all", "required", true}, {"all", "none", true}, {"required", "none", true},
		{"none", "required", false}, {"required", "all", false}, {"required", "required", false},
	} {
		removed := Removed(jsonText(ChecksLevels(c.was)), jsonText(ChecksLevels(c.is)))
		if (len(removed) > 0) != c.lowered {
			t.Errorf("checks %s -> %s: removed %q, want lowered %v", c.was, c.is, removed, c.lowered)
		}
		if got := LevelOfChecks(jsonText(ChecksLevels(c.is))); got != c.is {
			t.Errorf("LevelOfChecks(%s) = %s", c.is, got)
		}
	}
}
