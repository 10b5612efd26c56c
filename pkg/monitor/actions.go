package monitor

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/dispatch"
	"github.com/burl-dev/burl/pkg/osx"
)

// The board acts (DESIGN §27): a key on the selected task runs the verb a
// person would type, its own binary with an argv array, and the board
// shows what it printed. Whether the verb may act is the verb's to say:
// the board decides nothing, so its refusals read as the command line's.

// boardAction is one key of the board.
type boardAction struct {
	key, verb string
	// reason: the verb needs --reason, which the board asks for.
	reason bool
}

var boardActions = []boardAction{
	{"d", "diff", false},
	{"a", "approve", false},
	{"r", "reject", true},
	{"H", "hold", true}, // unhold on a held task
	{"u", "unblock", false},
	{"s", "stop", false},
	{"x", "cancel", true},
}

// keysHelp is the board's help line; "q quit" first, so that a narrow
// board still says how to leave.
const keysHelp = "q quit ⏎ show d diff a approve r reject H hold/unhold u unblock s stop x cancel"

// verbDoneMsg carries what a verb printed, for the output view.
type verbDoneMsg struct {
	title string
	out   []byte
	err   error
}

// acting is the state of the board's actions: the reason being typed, and
// the verb under way.
type acting struct {
	// run runs a verb's binary in dir (execVerb; tests put their own).
	run func(dir, verb string, args []string) ([]byte, error)
	dir string
	// asking is the action whose reason is being typed for task askID.
	asking *boardAction
	askID  string
	reason []rune
	// running is the command under way ("" when none).
	running string
}

// execVerb runs git-burl-<verb> from burl's exec path with args, its
// standard input empty, and returns its output, standard error included.
func execVerb(dir, verb string, args []string) ([]byte, error) {
	d, err := dispatch.ExecPath()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(d, "git-burl-"+verb), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	return cmd.CombinedOutput()
}

// actionKey starts the action of key k on the selected task, if k is one.
func (m *Model) actionKey(k string) (cmd tea.Cmd, ok bool) {
	var act *boardAction
	for i := range boardActions {
		if boardActions[i].key == k {
			act = &boardActions[i]
		}
	}
	if act == nil {
		return nil, false
	}
	c, sel := m.Selected()
	if !sel || m.acts.running != "" {
		return nil, true
	}
	a := *act
	if a.verb == "hold" && c.Held != "" {
		a = boardAction{key: a.key, verb: "unhold"}
	}
	if a.reason {
		m.acts.asking, m.acts.askID, m.acts.reason = &a, c.ID, nil
		return nil, true
	}
	return m.runVerb(a.verb, c.ID, nil), true
}

// promptKey edits the reason being asked for: enter runs the verb (once
// the reason says something), esc gives up.
func (m *Model) promptKey(k tea.KeyMsg) tea.Cmd {
	switch k.Type {
	case tea.KeyEsc:
		m.acts.asking = nil
	case tea.KeyEnter:
		why := strings.TrimSpace(string(m.acts.reason))
		if why == "" {
			return nil
		}
		a, id := m.acts.asking, m.acts.askID
		m.acts.asking = nil
		return m.runVerb(a.verb, id, []string{"--reason", why})
	case tea.KeyBackspace:
		if n := len(m.acts.reason); n > 0 {
			m.acts.reason = m.acts.reason[:n-1]
		}
	case tea.KeySpace:
		m.acts.reason = append(m.acts.reason, ' ')
	case tea.KeyRunes:
		m.acts.reason = append(m.acts.reason, k.Runes...)
	}
	return nil
}

// runVerb runs git burl verb ID [flags] in the background.
func (m *Model) runVerb(verb, id string, flags []string) tea.Cmd {
	args := append([]string{id}, flags...)
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = osx.ShellQuote(a)
	}
	title := "git burl " + verb + " " + strings.Join(quoted, " ")
	m.acts.running = title
	run, dir := m.acts.run, m.acts.dir
	return func() tea.Msg {
		out, err := run(dir, verb, args)
		return verbDoneMsg{title: title, out: out, err: err}
	}
}

// verbDone shows what the verb printed, and rereads the board it changed.
func (m *Model) verbDone(msg verbDoneMsg) tea.Cmd {
	m.acts.running = ""
	ls := []string{"$ " + cli.Escape(msg.title), ""}
	for _, l := range strings.Split(strings.TrimRight(string(msg.out), "\n"), "\n") {
		ls = append(ls, cli.Escape(strings.ReplaceAll(l, "\t", "    ")))
	}
	var ee *exec.ExitError
	switch {
	case msg.err == nil:
		ls = append(ls, "", "(exit 0)")
	case errors.As(msg.err, &ee):
		ls = append(ls, "", fmt.Sprintf("(exit %d)", ee.ExitCode()))
	default:
		ls = append(ls, "", "error: "+cli.Escape(msg.err.Error()))
	}
	m.detail, m.detailTop = wrapLines(ls, m.width), 0
	if m.loading {
		m.dirty = true
		return nil
	}
	m.loading = true
	return m.read
}

// actFooter is the footer while a reason is asked for or a verb runs.
func (m *Model) actFooter() (string, bool) {
	switch {
	case m.acts.asking != nil:
		return fmt.Sprintf("%s %s: reason? %s█  (⏎ runs, esc cancels)", m.acts.asking.verb, m.acts.askID, cli.Escape(string(m.acts.reason))), true
	case m.acts.running != "":
		return "running: " + cli.Escape(m.acts.running) + " …", true
	}
	return "", false
}
