package monitor

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/usage"
	"github.com/burl-dev/burl/pkg/workflow"
)

// style decorates drawn text; the plain snapshot uses none, the terminal
// board lipgloss styles (colourless under NO_COLOR).
type style struct {
	head, sel, warn, dim func(string) string
}

func plain(s string) string { return s }

var plainStyle = style{plain, plain, plain, plain}

// Layout is what one frame holds besides the board: the size and the
// selected card (bucket index and position), and whether there is a
// footer of keys.
type layout struct {
	width, height int // height 0: as tall as the board needs (snapshot)
	col, row      int
	selecting     bool
	footer        string
}

// snapshotEvents is how much of the event log's tail the snapshot shows.
const snapshotEvents = 10

// doneShown caps DONE in the snapshot: the most recent ones tell what just
// happened; the full history is `git burl log`.
const doneShown = 10

// Snapshot writes the plain-text board: no escape sequence, every task
// field escaped.
func Snapshot(out io.Writer, b *Board, width int) {
	for _, l := range render(b, layout{width: width}, plainStyle) {
		fmt.Fprintln(out, strings.TrimRight(l, " "))
	}
}

// fit cuts s to n cells (terminal columns), marking a cut with "…", and
// pads it to n.
func fit(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if w := lipgloss.Width(s); w <= n {
		return s + strings.Repeat(" ", n-w)
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		rw := lipgloss.Width(string(r))
		if used+rw > n-1 {
			break
		}
		b.WriteRune(r)
		used += rw
	}
	return b.String() + "…" + strings.Repeat(" ", n-1-used)
}

// Age is the short age of a card or run ("45s", "12m", "3h", "5d").
func Age(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
}

func prioLetter(p string) string {
	if p == "" {
		return "-"
	}
	return p[:1]
}

// cardLines draws a card in w cells: "ID p MARKERS" (the markers matter
// more than anything cut off at the right), the title, then its age and
// owner.
func cardLines(c Card, now time.Time, w int) []string {
	head := c.ID + " " + prioLetter(c.Priority)
	if m := c.Markers(); m != "" {
		head += " " + m
	}
	foot := " -"
	if !c.Since.IsZero() {
		foot = " " + Age(now.Sub(c.Since))
	}
	if c.Queue != "" {
		foot += " " + c.Queue
	}
	if pr := c.PR(); pr != "" && c.PRState == PROpen {
		// Before the cost and owner: what the task waits for (the
		// forge) matters more than what is cut off at the right.
		foot += " " + pr
	}
	if c.Usage.CostUSD > 0 {
		foot += " " + usage.Dollars(c.Usage.CostUSD)
	}
	if c.Owner != "" {
		foot += " @" + c.Owner
	}
	out := []string{fit(head, w), fit(" "+c.Title, w), fit(foot, w)}
	if c.StackedOn != "" {
		out = append(out, fit(" ↳ on "+c.StackedOn, w))
	}
	// Why a human is needed, in its summary; the task view has the rest.
	for _, l := range []struct{ label, text string }{{"blocked", c.Reason}, {"held", c.Held}, {"cancelled", c.Cancelled}} {
		if l.text != "" {
			out = append(out, fit(" "+l.label+": "+l.text, w))
		}
	}
	return out
}

// columnLines draws one bucket's column in w cells and at most h lines (h
// 0: no limit), scrolled so the selected card (sel, -1 for none) shows.
func columnLines(b *Board, bk workflow.Bucket, w, h, sel int, st style) []string {
	cards := b.Columns[bk]
	limit := len(cards)
	if h == 0 && bk == workflow.Done && limit > doneShown {
		limit = doneShown
	}
	var blocks [][]string
	for i := 0; i < limit; i++ {
		var ls []string
		if i == sel {
			// A bar in the text as well as the style: under NO_COLOR
			// (or a terminal without attributes) the selection still shows.
			ls = cardLines(cards[i], b.Now, w-1)
			for j := range ls {
				ls[j] = st.sel("▌" + ls[j])
			}
		} else {
			ls = cardLines(cards[i], b.Now, w)
			if m := cards[i].Markers(); m != "" && m != "W" {
				ls[0] = st.warn(ls[0])
			}
		}
		blocks = append(blocks, ls)
	}
	first := 0
	if h > 0 && sel >= 0 {
		// Scroll down until the selected card and the "more" line fit.
		for first < sel && height(blocks[first:sel+1])+1 > h {
			first++
		}
	}
	var out []string
	if first > 0 {
		out = append(out, st.dim(fit(fmt.Sprintf("↑ %d more", first), w)))
	}
	for i := first; i < len(blocks); i++ {
		rest := len(cards) - i - 1
		need := len(blocks[i])
		if rest > 0 {
			need++
		}
		if h > 0 && len(out)+need > h {
			out = append(out, st.dim(fit(fmt.Sprintf("↓ %d more", len(cards)-i), w)))
			return out
		}
		out = append(out, blocks[i]...)
	}
	if limit < len(cards) {
		out = append(out, st.dim(fit(fmt.Sprintf("… %d older", len(cards)-limit), w)))
	}
	return out
}

func height(blocks [][]string) int {
	n := 0
	for _, b := range blocks {
		n += len(b)
	}
	return n
}

func (b *Board) total() int {
	n := 0
	for _, bk := range b.lanes() {
		n += b.count(bk)
	}
	return n
}

// count is how many tasks bucket bk holds: DONE's column may hold only the
// most recent.
func (b *Board) count(bk workflow.Bucket) int {
	if bk == workflow.Done {
		return b.Done
	}
	return len(b.Columns[bk])
}

func eventLine(e events.Event) string {
	return e.TS.UTC().Format("15:04:05") + " " + eventText(e)
}

func runLine(r Run, now time.Time) string {
	s := fmt.Sprintf("%s %s#%d %s", r.Task, r.Agent, r.Attempt, Age(now.Sub(r.Since)))
	if r.LastLine != "" {
		s += "  " + r.LastLine
	}
	return cli.Escape(s)
}

// lostLine is a lost run: how long it ran, then why it is lost and what
// to do, before anything cut off at the right.
func lostLine(r Run) string {
	s := fmt.Sprintf("%s %s#%d LOST after %s: %s", r.Task, r.Agent, r.Attempt, Age(r.Until.Sub(r.Since)), r.Lost)
	if r.Next.Command != "" {
		s += " · next: " + r.Next.Command
	}
	return cli.Escape(s)
}

// render draws a frame as lines of exactly l.width cells (before styling).
func render(b *Board, l layout, st style) []string {
	w := l.width
	if w < 40 {
		w = 40
	}
	n := len(b.lanes())
	colW := (w - (n - 1)) / n
	title := fmt.Sprintf("burl monitor · %d tasks · %d running", b.total(), len(b.Runs))
	if len(b.Lost) > 0 {
		title += fmt.Sprintf(" · %d lost", len(b.Lost))
	}
	title += " · " + b.Now.UTC().Format("2006-01-02 15:04:05 UTC")
	if b.Cancelled > 0 {
		title += fmt.Sprintf(" · DONE %d landed, %d cancelled", b.Done-b.Cancelled, b.Cancelled)
	}
	if b.Malformed > 0 {
		title += fmt.Sprintf(" · %d malformed (git burl status)", b.Malformed)
	}
	out := []string{st.head(fit(title, w))}
	var heads []string
	for _, bk := range b.lanes() {
		heads = append(heads, st.head(fit(fmt.Sprintf("%s %d", bk, b.count(bk)), colW)))
	}
	out = append(out, strings.Join(heads, " "))

	runRows := len(b.Runs) + len(b.Lost)
	if runRows == 0 {
		runRows = 1
	}
	evRows := snapshotEvents
	boardH := 0
	if l.height > 0 {
		if runRows > 4 {
			runRows = 4
		}
		evRows = l.height / 5
		if evRows < 3 {
			evRows = 3
		}
		footer := 0
		if l.footer != "" {
			footer = 1
		}
		boardH = l.height - len(out) - (1 + runRows) - (1 + evRows) - footer
		if boardH < 4 {
			boardH = 4
		}
	}
	cols := make([][]string, n)
	rows := 0
	for i, bk := range b.lanes() {
		sel := -1
		if l.selecting && i == l.col {
			sel = l.row
		}
		cols[i] = columnLines(b, bk, colW, boardH, sel, st)
		if len(cols[i]) > rows {
			rows = len(cols[i])
		}
	}
	if boardH > 0 {
		rows = boardH
	}
	blank := strings.Repeat(" ", colW)
	for r := 0; r < rows; r++ {
		var cells []string
		for i := range cols {
			if r < len(cols[i]) {
				cells = append(cells, cols[i][r])
			} else {
				cells = append(cells, blank)
			}
		}
		out = append(out, strings.Join(cells, " "))
	}

	head := fmt.Sprintf("RUNNING %d", len(b.Runs))
	if len(b.Lost) > 0 {
		head += fmt.Sprintf(" · LOST %d", len(b.Lost))
	}
	out = append(out, st.head(fit(head, w)))
	if len(b.Runs)+len(b.Lost) == 0 {
		out = append(out, st.dim(fit("  no agent is running (git burl watch)", w)))
	}
	// Lost runs first: they are what needs a human.
	shown := 0
	for _, r := range b.Lost {
		if l.height > 0 && shown >= runRows {
			break
		}
		out = append(out, st.warn(fit("  "+lostLine(r), w)))
		shown++
	}
	for _, r := range b.Runs {
		if l.height > 0 && shown >= runRows {
			break
		}
		out = append(out, fit("  "+runLine(r, b.Now), w))
		shown++
	}
	out = append(out, st.head(fit("EVENTS", w)))
	tail := b.Tail
	if len(tail) > evRows {
		tail = tail[len(tail)-evRows:]
	}
	for _, e := range tail {
		out = append(out, fit("  "+eventLine(e), w))
	}
	if l.height > 0 {
		for len(out) < l.height-1 {
			out = append(out, strings.Repeat(" ", w))
		}
	}
	if l.footer != "" {
		out = append(out, st.dim(fit(l.footer, w)))
	}
	if l.height > 0 && len(out) > l.height {
		// Too small a terminal: the keys stay on the last line.
		last := out[len(out)-1]
		out = append(out[:l.height-1], last)
	}
	return out
}

// lastLine is the last non-empty line of a run's log, read from its last
// 4 KiB only: logs of long runs grow large.
func lastLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := st.Size() - 4096
	if off < 0 {
		off = 0
	}
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\r\n \t"), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
