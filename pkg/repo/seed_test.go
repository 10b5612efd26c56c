package repo_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/repo"
	"github.com/burl-dev/burl/pkg/runguard"
)

// seedCase is a user's and a repository's configuration as watch meets it.
type seedCase struct {
	name   string
	global string // ~/.gitconfig ("" none); %R is the repository
	local  [][]string
	// setup runs after the files are written (home, repository).
	setup func(t *testing.T, home, root string)
	// seeded: the answer is kept; else git must be asked, as before.
	seeded bool
}

var seedCases = []seedCase{{
	name: "global and local, implicit booleans, subsections with upper case, remotes, credential helpers, hooksPath",
	global: `[user]
	name = José \"Q\" \\ Dev
	email = dev@example.com
[commit]
	gpgSign
[credential]
	helper = store --file ~/.creds
	helper =
	helper = "!f() { echo \"password=x\"; }; f"
[credential "https://Example.com/Org"]
	helper = cache --timeout=60
[credential "https://exämple.com"]
	helper = "  spaced\tand tabbed  "
[core]
	hooksPath = ~/hooks
	commentChar = ";"
[gc]
	auto = 0
[remote "Upstream.Mirror"]
	url = https://Example.com/Org/Repo.git
[Maintenance]
	auto = false
`,
	local: [][]string{
		{"remote.origin.url", "git@example.com:org/repo.git"},
		{"remote.origin.pushurl", "ssh://example.com/Push Me"},
		{"remote.my remote.url", "/srv/my remote"},
		{"burl.branch", "flow"},
		{"credential.helper", ""},
		{"core.hooksPath", ".githooks"},
		{"user.name", "Local Name  "},
	},
	seeded: true,
}, {
	name: "include and includeIf in the global config, flattened",
	global: `[include]
	path = ~/inc.gitconfig
[includeIf "gitdir:%R/"]
	path = ~/work.gitconfig
[includeIf "gitdir:/nowhere/"]
	path = ~/never.gitconfig
[user]
	name = After Includes
`,
	setup: func(t *testing.T, home, root string) {
		write(t, filepath.Join(home, "inc.gitconfig"), "[user]\n\temail = inc@example.com\n[core]\n\thooksPath = /inc/hooks\n")
		write(t, filepath.Join(home, "work.gitconfig"), "[credential \"https://Work.example\"]\n\thelper = work\n[commit]\n\tgpgsign = false\n")
		write(t, filepath.Join(home, "never.gitconfig"), "[user]\n\temail = never@example.com\n")
	},
	seeded: true,
}, {
	name:   "a worktree config, command-line settings and a temp dir with a space",
	global: "[user]\n\tname = G\n",
	local:  [][]string{{"extensions.worktreeConfig", "true"}},
	setup: func(t *testing.T, home, root string) {
		gittest.Git(t, root, "config", "--worktree", "core.hooksPath", "/wt/hooks")
		gittest.Git(t, root, "config", "--worktree", "remote.wt.url", "/wt/remote")
		t.Setenv("GIT_CONFIG_COUNT", "2")
		t.Setenv("GIT_CONFIG_KEY_0", "user.email")
		t.Setenv("GIT_CONFIG_VALUE_0", "cli@example.com")
		t.Setenv("GIT_CONFIG_KEY_1", "gc.autoPackLimit")
		t.Setenv("GIT_CONFIG_VALUE_1", "7")
		tmp := filepath.Join(t.TempDir(), "a space")
		if err := os.Mkdir(tmp, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("TMPDIR", tmp)
	},
	seeded: true,
}, {
	name:   "a system config named by GIT_CONFIG_SYSTEM",
	global: "[user]\n\tname = G\n",
	setup: func(t *testing.T, home, root string) {
		sys := filepath.Join(home, "system-gitconfig")
		write(t, sys, "[user]\n\temail = sys@example.com\n[credential]\n\thelper = sys\n[include]\n\tpath = sys-inc\n")
		write(t, filepath.Join(home, "sys-inc"), "[core]\n\tcommentChar = %\n")
		os.Unsetenv("GIT_CONFIG_NOSYSTEM")
		t.Setenv("GIT_CONFIG_SYSTEM", sys)
	},
	seeded: true,
}, {
	name:   "an include in the repository's config: git is asked",
	global: "[user]\n\tname = G\n",
	local:  [][]string{{"include.path", "../../extra"}},
	setup: func(t *testing.T, home, root string) {
		write(t, filepath.Join(root, ".git", "..", "..", "extra"), "[burl]\n\tbranch = inc\n")
	},
}, {
	name:   "a value over two lines: git is asked",
	global: "[user]\n\tname = \"two\\nlines\"\n",
}, {
	name:   "a repository path git would quote: git is asked",
	global: "[user]\n\tname = G\n",
	setup: func(t *testing.T, home, root string) {
		tmp := filepath.Join(t.TempDir(), "q\"uote")
		if err := os.Mkdir(tmp, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv("TMPDIR", tmp)
	},
}}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPinSeedsWhatGitAnswersUnderThePin: what the pin keeps for the
// pinned environment is, byte for byte, what resolve would have kept
// from git there; and Resolve under the pin then starts no git.
func TestPinSeedsWhatGitAnswersUnderThePin(t *testing.T) {
	for _, c := range seedCases {
		t.Run(c.name, func(t *testing.T) {
			root := gittest.NewRepo(t)
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("GIT_CONFIG_GLOBAL", "")
			os.Unsetenv("GIT_CONFIG_GLOBAL")
			t.Setenv("XDG_CONFIG_HOME", "")
			os.Unsetenv("XDG_CONFIG_HOME")
			t.Setenv("GIT_ATTR_NOSYSTEM", "1")
			if c.global != "" {
				write(t, filepath.Join(home, ".gitconfig"), strings.ReplaceAll(c.global, "%R", root))
			}
			for _, kv := range c.local {
				gittest.Git(t, root, "config", kv[0], kv[1])
			}
			if c.setup != nil {
				c.setup(t, home, root)
			}
			p, err := runguard.PinGitConfig(root, "")
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if err := p.Setenv(); err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM", "GIT_ATTR_NOSYSTEM"} {
				t.Setenv(k, os.Getenv(k)) // restored after the test
			}
			want, err := gitx.Git{Dir: root, UserHooks: true}.Run("config", "--show-origin", "--get-regexp", repo.BootstrapKeys)
			if err != nil && gitx.ExitCodeOf(err) != 1 {
				t.Fatal(err)
			}
			got, kept := repo.KeptBootstrap(root)
			if !c.seeded {
				if kept {
					t.Fatalf("kept an answer git must give:\n%s\ngit:\n%s", got, want)
				}
				return
			}
			if !kept {
				t.Fatalf("nothing kept; git answers:\n%s", want)
			}
			if got != want {
				t.Fatalf("kept:\n%q\ngit under the pin:\n%q", got, want)
			}
			// The next Resolve (watch's workflow.Open) asks no git.
			was := gitx.Program()
			gitx.SetProgram(filepath.Join(t.TempDir(), "no-git"))
			r, err := repo.Resolve(root)
			gitx.SetProgram(was)
			if err != nil || r.Root != root {
				t.Fatalf("Resolve under the pin without git: %v %v", r, err)
			}
		})
	}
}
