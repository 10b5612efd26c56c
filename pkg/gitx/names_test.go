package gitx

import "testing"

func TestValidBranch(t *testing.T) {
	for name, want := range map[string]bool{
		"task-001-feature": true, "feature/x": true, "v1.2": true,
		"": false, "-x": false, "refs/heads/zz": false, "a..b": false, "a b": false,
		"a\nb": false, "a~1": false, "a^": false, "a:b": false, "x.lock": false,
		".hidden": false, "a/.b": false, "a/": false, "/a": false, "a//b": false, "a.": false,
		"@": false, "a@{1}": false, "HEAD": false, "a\x1b[2J": false, "a*": false,
	} {
		if got := ValidBranch(name); got != want {
			t.Errorf("ValidBranch(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestValidObjectID(t *testing.T) {
	for s, want := range map[string]bool{
		"0123456789abcdef0123456789abcdef01234567":                         true,
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef": true,
		"0123456789ABCDEF0123456789abcdef01234567":                         false,
		"--output=/tmp/x": false, "HEAD": false, "0123456": false, "": false,
	} {
		if got := ValidObjectID(s); got != want {
			t.Errorf("ValidObjectID(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzValidBranch: whatever passes never looks like an option, a full ref,
// a revision expression or a line break to git.
func FuzzValidBranch(f *testing.F) {
	for _, s := range []string{"task-001-x", "refs/heads/a", "-rf", "a..b", "a\nb", "feature/x", "a@{u}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !ValidBranch(s) {
			return
		}
		if s[0] == '-' || HasControl(s) || len(s) >= 5 && s[:5] == "refs/" {
			t.Fatalf("ValidBranch accepted %q", s)
		}
		for i := 0; i+1 < len(s); i++ {
			if s[i] == '.' && s[i+1] == '.' || s[i] == '@' && s[i+1] == '{' {
				t.Fatalf("ValidBranch accepted %q", s)
			}
		}
	})
}

func FuzzValidObjectID(f *testing.F) {
	f.Add("0123456789abcdef0123456789abcdef01234567")
	f.Add("--output=x")
	f.Fuzz(func(t *testing.T, s string) {
		if ValidObjectID(s) && (s[0] == '-' || HasControl(s) || len(s) < 40) {
			t.Fatalf("ValidObjectID accepted %q", s)
		}
	})
}
