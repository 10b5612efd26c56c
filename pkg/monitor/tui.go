package monitor

import (
	"os"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/burl-dev/burl/pkg/board"
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Messages of the live board.
type (
	// changedMsg: a watched file changed (or ages need redrawing).
	changedMsg struct{}
	// tickMsg: a second passed; the clock and ages move on without a
	// reread of the workflow.
	tickMsg time.Time
	// boardMsg carries a freshly read board.
	boardMsg struct {
		b   *board.Board
		err error
	}
)

// Model is the live board's bubbletea model. Update is pure apart from
// the commands it returns, so tests drive it directly.
type Model struct {
	load    func() (*board.Board, error)
	changes <-chan struct{}
	board   *board.Board
	err     error
	width   int
	height  int
	col     int
	row     int
	// loading: a read is under way; dirty: another change came meanwhile.
	loading, dirty bool
	// detail is the selected task's file, shown after Enter.
	detail    []string
	detailTop int
	st        style
	// acts: the keys that run verbs (actions.go).
	acts acting
}

// NewModel is the board reading with load, woken by changes.
func NewModel(load func() (*board.Board, error), changes <-chan struct{}, color bool) *Model {
	return &Model{load: load, changes: changes, width: 80, height: 24, st: tuiStyle(color), loading: true, acts: acting{run: execVerb}}
}

func tuiStyle(color bool) style {
	r := lipgloss.NewRenderer(os.Stdout)
	head := r.NewStyle().Bold(true)
	sel := r.NewStyle().Reverse(true)
	warn := r.NewStyle().Bold(true)
	dim := r.NewStyle().Faint(true)
	if color {
		head = head.Foreground(lipgloss.Color("12"))
		warn = warn.Foreground(lipgloss.Color("9"))
	}
	return style{render1(head), render1(sel), render1(warn), render1(dim)}
}

func render1(s lipgloss.Style) func(string) string {
	return func(t string) string { return s.Render(t) }
}

func (m *Model) read() tea.Msg {
	b, err := m.load()
	return boardMsg{b, err}
}

func (m *Model) wait() tea.Msg {
	if _, ok := <-m.changes; !ok {
		return nil
	}
	return changedMsg{}
}

// Init reads the board and starts waiting for changes.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.read, m.wait, tick()) }

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// Update handles keys, sizes, changes and fresh boards.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case changedMsg:
		if m.loading {
			m.dirty = true
			return m, m.wait
		}
		m.loading = true
		return m, tea.Batch(m.read, m.wait)
	case boardMsg:
		m.loading = false
		m.board, m.err = msg.b, msg.err
		m.clamp()
		if m.dirty {
			m.dirty, m.loading = false, true
			return m, m.read
		}
	case tickMsg:
		if m.board != nil {
			m.board.Now = time.Time(msg)
			if !m.loading && m.board.Gone(m.board.Now) {
				// A watcher died: its run is lost now, not at the next change.
				m.loading = true
				return m, tea.Batch(m.read, tick())
			}
		}
		return m, tick()
	case tea.KeyMsg:
		return m.key(msg)
	case verbDoneMsg:
		return m, m.verbDone(msg)
	}
	return m, nil
}

func (m *Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if m.acts.asking != nil && k.String() != "ctrl+c" {
		return m, m.promptKey(k)
	}
	switch k.String() {
	case "q", "ctrl+c":
		return m, tea.Quit
	}
	if m.detail != nil {
		switch k.String() {
		case "esc", "enter", "backspace", "left":
			m.detail = nil
		case "up", "k":
			if m.detailTop > 0 {
				m.detailTop--
			}
		case "down", "j", " ":
			if m.detailTop < len(m.detail)-1 {
				m.detailTop++
			}
		}
		return m, nil
	}
	if cmd, ok := m.actionKey(k.String()); ok {
		return m, cmd
	}
	switch k.String() {
	case "left", "h":
		m.col = (m.col + len(m.board.Lanes()) - 1) % len(m.board.Lanes())
	case "right", "l", "tab":
		m.col = (m.col + 1) % len(m.board.Lanes())
	case "up", "k":
		m.row--
	case "down", "j":
		m.row++
	case "enter":
		if c, ok := m.Selected(); ok {
			m.detail = wrapLines(taskText(c, m.board), m.width)
			m.detailTop = 0
		}
	}
	m.clamp()
	return m, nil
}

// clamp keeps the selection on a card of the selected column.
func (m *Model) clamp() {
	// PROPOSED's column goes with its last task.
	if l := len(m.board.Lanes()); m.col >= l {
		m.col = l - 1
	}
	n := 0
	if m.board != nil {
		n = len(m.board.Columns[m.board.Lanes()[m.col]])
	}
	if m.row >= n {
		m.row = n - 1
	}
	if m.row < 0 {
		m.row = 0
	}
}

// Selected is the card under the cursor.
func (m *Model) Selected() (board.Card, bool) {
	if m.board == nil {
		return board.Card{}, false
	}
	lanes := m.board.Lanes()
	if m.col >= len(lanes) {
		return board.Card{}, false
	}
	cs := m.board.Columns[lanes[m.col]]
	if m.row < len(cs) {
		return cs[m.row], true
	}
	return board.Card{}, false
}

// taskText is the task file, every line escaped, below what happens next
// to it, its pull request's number, state and URL when it has one, and
// the BLOCKED tasks it waits for (on b).
func taskText(c board.Card, b *board.Board) []string {
	var head []string
	if c.Holder.Gone() {
		head = append(head, "LOST: "+cli.Escape(c.Holder.Describe()))
	}
	if l := c.Next.Line(); l != "" {
		head = append(head, "next: "+l)
	}
	head = append(append(head, board.PRDetail(c)...), depDetail(c, b)...)
	data, err := os.ReadFile(c.Path)
	if err != nil {
		return append(head, c.ID+": "+cli.Escape(err.Error()))
	}
	ls := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	for i := range ls {
		ls[i] = cli.Escape(strings.ReplaceAll(ls[i], "\t", "    "))
	}
	return append(head, ls...)
}

// depDetail is what the task view shows above a READY task's file about
// each dependency it waits for that is BLOCKED: that no agent will claim
// the task until a human acts, the dependency's reason as the board has
// it, and the commands that say and settle it.
func depDetail(c board.Card, b *board.Board) []string {
	if len(c.BlockedDeps) == 0 {
		return nil
	}
	deps := map[string]board.Card{}
	if b != nil {
		for _, d := range b.Columns[workflow.Blocked] {
			deps[d.ID] = d
		}
	}
	var out []string
	for _, d := range c.BlockedDeps {
		dep := deps[d]
		d := cli.Escape(d)
		out = append(out, "B! waits for "+d+", which is BLOCKED: a human must act (no agent claims "+c.ID+" until then)")
		if dep.Reason != "" {
			out = append(out, "   "+d+" blocked: "+dep.Reason)
		}
		line := "   git burl show " + d + " says why"
		if l := dep.Next.Line(); l != "" {
			line += "; next for " + d + ": " + l
		}
		out = append(out, line)
	}
	return append(out, "")
}

// wrapLines breaks lines wider than width (a long blocked_reason, a QA
// report line) into as many as they need, so nothing is cut off; the
// continuation lines are indented by two.
func wrapLines(ls []string, width int) []string {
	if width < 8 {
		return ls
	}
	var out []string
	for _, l := range ls {
		rs := []rune(l)
		first := true
		for {
			max := width
			prefix := ""
			if !first {
				max, prefix = width-2, "  "
			}
			if len(rs) <= max {
				out = append(out, prefix+string(rs))
				break
			}
			out = append(out, prefix+string(rs[:max]))
			rs, first = rs[max:], false
		}
	}
	return out
}

// View draws the board, or the selected task after Enter.
func (m *Model) View() string {
	if m.board == nil {
		if m.err != nil {
			return "burl monitor: " + cli.Escape(m.err.Error()) + "\n(q quits)\n"
		}
		return "burl monitor: reading the workflow…\n"
	}
	if m.detail != nil {
		h := m.height - 1
		if h < 1 {
			h = 1
		}
		end := m.detailTop + h
		if end > len(m.detail) {
			end = len(m.detail)
		}
		ls := make([]string, 0, m.height)
		for _, l := range m.detail[m.detailTop:end] {
			ls = append(ls, fit(l, m.width))
		}
		for len(ls) < h {
			ls = append(ls, "")
		}
		ls = append(ls, m.st.dim(fit("↑↓ scroll · esc back · q quit", m.width)))
		return strings.Join(ls, "\n")
	}
	footer := keysHelp
	if f, ok := m.actFooter(); ok {
		footer = f
	} else if m.err != nil {
		footer = "error: " + cli.Escape(m.err.Error())
	}
	return strings.Join(render(m.board, layout{width: m.width, height: m.height, col: m.col, row: m.row, selecting: true, footer: footer}, m.st), "\n")
}
