package monitor

import (
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// ran records the verbs a test board ran.
type ran struct {
	verb string
	args []string
}

func actingModel(t *testing.T) (*Model, *[]ran) {
	m := newTestModel(t, testBoard(t))
	var calls []ran
	m.acts.run = func(dir, verb string, args []string) ([]byte, error) {
		calls = append(calls, ran{verb, args})
		if verb == "reject" {
			return []byte("error: Cannot reject\nReason: it is in READY\n"), errors.New("exit status 1")
		}
		return []byte("Approved " + args[0] + "\n"), nil
	}
	return m, &calls
}

// drive runs what Update returned until it settles, as bubbletea would.
func drive(m *Model, cmd tea.Cmd) {
	for cmd != nil {
		msg := cmd()
		if _, ok := msg.(verbDoneMsg); !ok {
			return
		}
		_, cmd = m.Update(msg)
	}
}

func TestBoardKeyRunsTheVerbAndShowsItsOutput(t *testing.T) {
	m, calls := actingModel(t)
	_, cmd := m.Update(key("a"))
	if !strings.Contains(m.View(), "running: git burl approve TASK-001") {
		t.Errorf("no running footer:\n%s", m.View())
	}
	drive(m, cmd)
	if want := []ran{{"approve", []string{"TASK-001"}}}; !reflect.DeepEqual(*calls, want) {
		t.Fatalf("ran %v, want %v", *calls, want)
	}
	v := m.View()
	if !strings.Contains(v, "$ git burl approve TASK-001") || !strings.Contains(v, "Approved TASK-001") || !strings.Contains(v, "(exit 0)") {
		t.Fatalf("output view:\n%s", v)
	}
	m.Update(key("esc"))
	if !strings.Contains(m.View(), keysHelp[:20]) {
		t.Fatalf("board not back:\n%s", m.View())
	}
}

func TestBoardAsksAReasonWhereTheVerbNeedsOne(t *testing.T) {
	m, calls := actingModel(t)
	m.Update(key("down"))
	m.Update(key("r"))
	if !strings.Contains(m.View(), "reject TASK-002: reason?") {
		t.Fatalf("no prompt:\n%s", m.View())
	}
	// An empty reason runs nothing; q is a letter of the reason, not quit.
	if _, cmd := m.Update(key("enter")); cmd != nil || len(*calls) > 0 {
		t.Fatal("ran with no reason")
	}
	m.Update(key("q"))
	m.Update(tea.KeyMsg{Type: tea.KeySpace})
	m.Update(key("xz"))
	m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
	_, cmd := m.Update(key("enter"))
	drive(m, cmd)
	if want := []ran{{"reject", []string{"TASK-002", "--reason", "q x"}}}; !reflect.DeepEqual(*calls, want) {
		t.Fatalf("ran %v, want %v", *calls, want)
	}
	if v := m.View(); !strings.Contains(v, "Reason: it is in READY") || !strings.Contains(v, "error: exit status 1") {
		t.Fatalf("refusal not shown:\n%s", v)
	}
	// esc gives up without running anything.
	m.Update(key("esc"))
	m.Update(key("x"))
	m.Update(key("esc"))
	if len(*calls) != 1 || m.acts.asking != nil {
		t.Fatalf("cancel after esc: %v", *calls)
	}
}

func TestBoardHoldKeyUnholdsAHeldTask(t *testing.T) {
	m, calls := actingModel(t)
	m.board.Columns["READY"][0].Held = "mine"
	drive(m, func() tea.Msg { _, cmd := m.Update(key("H")); return cmd() })
	if want := []ran{{"unhold", []string{"TASK-001"}}}; !reflect.DeepEqual(*calls, want) {
		t.Fatalf("ran %v, want %v", *calls, want)
	}
}

func TestExitCodeShown(t *testing.T) {
	m, _ := actingModel(t)
	err := exec.Command("sh", "-c", "exit 5").Run()
	m.Update(verbDoneMsg{title: "git burl approve TASK-001", out: []byte("no\n"), err: err})
	if !strings.Contains(m.View(), "(exit 5)") {
		t.Fatalf("%s", m.View())
	}
}
