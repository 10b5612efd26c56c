package views

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/suggest"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/usage"
	"github.com/burl-dev/burl/pkg/verb"
)

// Log is `git burl log`: what cmd/git-burl-log runs. Only the
// verbs a binary names are linked into it.
func Log() cli.Command { return &logCmd{} }

type logCmd struct {
	cli.JSONFlag
	Task   string `long:"task" value-name:"ID" description:"Only events of this task"`
	Action string `long:"action" value-name:"ACTION" description:"Only events of this action (claim, submit, approve, ...)"`
	Since  string `long:"since" value-name:"WHEN" description:"Only events since an RFC 3339 time, a date (2026-01-13) or a duration ago (90m, 2h, 7d)"`
	Follow bool   `long:"follow" short:"f" description:"Keep printing new events as they are appended (one JSON line each with --json)"`
}

type logOut struct {
	Events  []events.Event `json:"events"`
	Skipped int            `json:"skipped_lines"`
}

func (o logOut) Human(w io.Writer) {
	for _, e := range o.Events {
		fmt.Fprintln(w, humanEvent(e))
	}
	if o.Skipped > 0 {
		fmt.Fprintf(w, "(%d unreadable line(s) skipped)\n", o.Skipped)
	}
	if tb := runUsage(o.Events); len(tb) > 0 {
		tot := tb.Total()
		fmt.Fprintf(w, "usage: %d run(s), %s", tot.Runs, tot.Usage.Short())
		if len(tb) > 1 {
			names := make([]string, 0, len(tb))
			for a := range tb {
				names = append(names, a)
			}
			sort.Strings(names)
			for i, a := range names {
				sep := " ("
				if i > 0 {
					sep = "; "
				}
				fmt.Fprintf(w, "%s%s: %s", sep, a, tb[a].Usage.Short())
			}
			fmt.Fprint(w, ")")
		}
		fmt.Fprintln(w)
	}
}

// runUsage sums the usage that run_end events recorded, by agent.
func runUsage(evs []events.Event) usage.Table {
	tb := usage.Table{}
	for _, e := range evs {
		if u, ok := detailUsage(e, "usage"); ok {
			agent, _ := e.Details["agent"].(string)
			tb.Add(agent, u)
		}
	}
	return tb
}

// detailUsage is a run_end event's usage detail, when key is it.
func detailUsage(e events.Event, key string) (usage.Usage, bool) {
	raw, ok := e.Details[key]
	if e.Action != "run_end" || key != "usage" || !ok {
		return usage.Usage{}, false
	}
	j, _ := json.Marshal(raw)
	var u usage.Usage
	return u, json.Unmarshal(j, &u) == nil
}

func humanEvent(e events.Event) string {
	t := e.TaskID()
	if t == "" {
		t = "-"
	}
	var det []string
	keys := make([]string, 0, len(e.Details))
	for k := range e.Details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if u, ok := detailUsage(e, k); ok {
			det = append(det, k+"=["+u.Short()+"]")
			continue
		}
		v, _ := json.Marshal(e.Details[k])
		det = append(det, k+"="+strings.Trim(string(v), `"`))
	}
	// One event is one line: whatever the (shared) log holds, a newline or
	// an escape sequence in it is shown, not obeyed.
	return cli.Escape(strings.TrimRight(fmt.Sprintf("%s  %-10s %-9s %s  %s", e.TS.UTC().Format(time.RFC3339), e.Action, t, e.Actor, strings.Join(det, " ")), " "))
}

// actions are the event actions burl writes (DESIGN §9).
var actions = []string{"init", "add", "claim", "submit", "validate", "approve", "reject", "block", "unblock",
	"hold", "unhold", "edit", "cancel", "release", "lock_clear", "lock_cleared", "clean", "repair", "sync", "scope", "scope_request", "scope_denied", "stop", "run_start", "run_end", "lease", "lease_expired", "pr_open", "pr_merged", "pr_closed", "pr_changes_requested", "review", "review_start", "checks_failed", "run_tampered", "restack", "accept", "drain"}

func knownAction(a string) bool {
	for _, k := range actions {
		if k == a {
			return true
		}
	}
	return false
}

func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := time.ParseDuration(n + "h"); err == nil {
			return now.Add(-24 * d), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, errs.New(errs.User, "--since %q is not a time (2026-01-13T10:00:00Z), a date (2026-01-13) or a duration (90m, 2h, 7d)", s)
}

func (c *logCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 0 {
		return nil, cli.UsageError("log", "takes no positional arguments (use --task ID)")
	}
	f := events.Filter{Action: c.Action}
	if c.Action != "" && !knownAction(c.Action) {
		// Still filter (a newer burl may log other actions), but a typo
		// should not read as "nothing happened".
		msg := fmt.Sprintf("--action %q is not an action burl logs", c.Action)
		if s := suggest.Nearest(c.Action, actions, 3); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		ctx.Warnf("%s", msg)
	}
	if c.Task != "" {
		id, err := task.NormalizeID(c.Task)
		if err != nil {
			return nil, err
		}
		f.Task = id
	}
	if c.Since != "" {
		t, err := parseSince(c.Since, time.Now())
		if err != nil {
			return nil, err
		}
		f.Since = t
	}
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	if c.Follow {
		return nil, follow(ctx, w.EventsDir(), f)
	}
	evs, bad, err := events.Read(w.EventsDir(), f)
	if err != nil {
		return nil, err
	}
	if evs == nil {
		evs = []events.Event{}
	}
	return logOut{Events: evs, Skipped: bad}, nil
}

// follow prints matching events, then polls the log for appended lines
// until interrupted. It polls (every 250ms) rather than using inotify so it
// behaves the same on every OS and across `git pull` rewriting a file. The
// log is one file per day: the files are listed again when the day's
// shard it reads is not today's (a new day, or events pulled from a
// machine whose clock is ahead), so a new shard is read from its start.
func follow(ctx *cli.Context, dir string, f events.Filter) error {
	offs := map[string]int64{}
	partial := map[string][]byte{}
	var files []string
	listed := ""
	for {
		today := events.Path(dir, time.Now())
		if listed != today {
			fs, err := events.Files(dir, f.Since)
			if err != nil {
				return err
			}
			files, listed = fs, today
		} else if len(files) == 0 || files[len(files)-1] != today {
			if _, err := os.Stat(today); err == nil {
				files = append(files, today)
			}
		}
		for _, p := range files {
			followFile(ctx, p, f, offs, partial)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// followFile prints what was appended to p since the last look.
func followFile(ctx *cli.Context, p string, f events.Filter, offs map[string]int64, partial map[string][]byte) {
	fh, err := os.Open(p)
	if err != nil {
		return
	}
	defer fh.Close()
	off := offs[p]
	info, err := fh.Stat()
	if err != nil || info.Size() == off {
		return
	}
	if info.Size() < off {
		off, partial[p] = 0, nil // replaced (e.g. reset to the remote): start over
	}
	if _, err := fh.Seek(off, io.SeekStart); err != nil {
		return
	}
	data, _ := io.ReadAll(fh)
	offs[p] = off + int64(len(data))
	data = append(partial[p], data...)
	cut := strings.LastIndexByte(string(data), '\n') + 1
	partial[p] = append([]byte(nil), data[cut:]...)
	evs, _, _ := events.Decode(strings.NewReader(string(data[:cut])), f)
	for _, e := range evs {
		if ctx.JSON {
			line, _ := json.Marshal(e)
			fmt.Fprintf(ctx.Stdout, "%s\n", line)
		} else {
			fmt.Fprintln(ctx.Stdout, humanEvent(e))
		}
	}
}
