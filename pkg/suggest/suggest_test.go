package suggest

import "testing"

func TestNearest(t *testing.T) {
	verbs := []string{"init", "add", "status", "show", "claim", "submit", "lock", "log", "stats"}
	for _, c := range []struct {
		word string
		max  int
		want string
	}{
		{"clam", 3, "claim"},
		{"stauts", 3, "status"}, // a swap costs 1, as deleting the u for stats: the earlier wins
		{"stast", 3, "stats"},
		{"sho", 3, "show"},
		{"lok", 3, "lock"},    // tie with log (both 1): the earlier candidate wins
		{"xyzzy", 3, ""},      // nothing close
		{"claim", 3, "claim"}, // exact
		{"clm", 3, "claim"},
		{"clm", 2, ""}, // maxDist is exclusive: distance 2 is not closer than 2
		{"cl", 2, ""},  // every verb is 3 edits away
		{"", 3, ""},    // an empty word is nothing like a verb
	} {
		if got := Nearest(c.word, verbs, c.max); got != c.want {
			t.Errorf("Nearest(%q, %d) = %q, want %q", c.word, c.max, got, c.want)
		}
	}
	if got := Nearest("max_paralel", []string{"max_parallel", "main_branch"}, 4); got != "max_parallel" {
		t.Errorf("config key suggestion = %q", got)
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2}, {"same", "same", 0},
	} {
		if got := distance(c.a, c.b); got != c.d {
			t.Errorf("distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if got := distance(c.b, c.a); got != c.d {
			t.Errorf("distance is not symmetric for %q, %q", c.a, c.b)
		}
	}
}
