package views

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/stats"
	"github.com/burl-dev/burl/pkg/usage"
	"github.com/burl-dev/burl/pkg/verb"
)

// Stats is `git burl stats`: what cmd/git-burl-stats runs.
func Stats() cli.Command { return &statsCmd{} }

type statsCmd struct {
	cli.JSONFlag
	Since string `long:"since" value-name:"WHEN" description:"Count only what happened at or after WHEN: RFC 3339, a date (2026-11-24) or a time ago (90m, 24h, 7d)"`
	By    string `long:"by" value-name:"agent|model|tag" description:"A row per agent, model or tag besides the total"`
}

// Brief: stats holds one compact record per event, well under the soft
// memory limit at 10,000 tasks; its GC runs only at that limit.
func (*statsCmd) Brief() {}

type statsOut struct{ stats.Report }

func (c *statsCmd) Run(ctx *cli.Context, args []string) (cli.Output, error) {
	if len(args) > 0 {
		return nil, cli.UsageError("stats", "takes no arguments")
	}
	o := stats.Options{By: c.By}
	switch c.By {
	case "", stats.ByAgent, stats.ByModel, stats.ByTag:
	default:
		return nil, errs.New(errs.User, "--by %q is not agent, model or tag", c.By).WithFix("git burl stats --by agent")
	}
	if c.Since != "" {
		t, err := parseSince(c.Since, time.Now())
		if err != nil {
			return nil, err
		}
		o.Since = t
	}
	w, err := verb.Open(ctx)
	if err != nil {
		return nil, err
	}
	if c.By == stats.ByTag {
		// Tags live in the task files (edit changes them), read through
		// status's cache.
		sums, err := w.Summaries(true, true)
		if err != nil {
			return nil, err
		}
		o.Tags = map[string][]string{}
		for _, s := range sums {
			var f struct {
				Tags []string `json:"tags"`
			}
			if s.Err == nil && json.Unmarshal(s.Fields, &f) == nil {
				o.Tags[s.ID] = f.Tags
			}
		}
	}
	rep, err := stats.Compute(w.EventsDir(), o)
	if err != nil {
		return nil, err
	}
	return statsOut{rep}, nil
}

func (o statsOut) Human(out io.Writer) {
	w := bufio.NewWriter(out)
	defer w.Flush()
	head := []string{"", "landed", "cancelled", "blocked", "first-pass", "rounds", "spend", "per landed", "landed nothing", "claim→landed", "ready→landed", "touches"}
	rows := [][]string{head, cells("all", o.Total)}
	for _, g := range o.Groups {
		rows = append(rows, cells(cli.Escape(g.Key), g))
	}
	width := make([]int, len(head))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	if o.Since != nil {
		fmt.Fprintf(w, "since %s\n", o.Since.Format(time.RFC3339))
	}
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	fmt.Fprintln(w, "first-pass: landed with no rejection, request_changes, failed check, scope grant or unblock; per landed: all spend (failed runs and tasks that never landed included) over the landed tasks; touches: a person's transitions per landed task")
}

func cells(key string, r stats.Row) []string {
	fp := "—"
	if r.FirstPassYield != nil {
		fp = fmt.Sprintf("%.0f%% (%d)", *r.FirstPassYield*100, r.FirstPass)
	}
	return []string{key, fmt.Sprint(r.Landed), fmt.Sprint(r.Cancelled), fmt.Sprint(r.Blocked), fp,
		num(r.RoundsPerLanded, "%.2f"), usage.Dollars(r.SpendUSD), dollars(r.CostPerLandedUSD), usage.Dollars(r.SpendLandedNothingUSD),
		dur(r.MedianClaimToLandedS), dur(r.MedianReadyToLandedS), num(r.TouchesPerLanded, "%.2f")}
}

func num(f *float64, format string) string {
	if f == nil {
		return "—"
	}
	return fmt.Sprintf(format, *f)
}

func dollars(f *float64) string {
	if f == nil {
		return "—"
	}
	return usage.Dollars(*f)
}

func dur(s *float64) string {
	if s == nil {
		return "—"
	}
	return (time.Duration(*s) * time.Second).Round(time.Second).String()
}
