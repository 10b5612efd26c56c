// Package budget is the project's daily spending cap (DESIGN §27): config
// max_cost_usd_per_day against what the day's runs cost, as the event log
// records it (run_end's usage, and a review's). The day is UTC, as the
// log's shards are, so every clone and time zone agrees on it.
package budget

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/burl-dev/burl/pkg/events"
	"github.com/burl-dev/burl/pkg/osx"
	"github.com/burl-dev/burl/pkg/usage"
)

// State is the day's spend against the cap, as status --json and inbox
// report it.
type State struct {
	Day      string  `json:"day"`
	LimitUSD float64 `json:"limit_usd"`
	SpentUSD float64 `json:"spent_usd"`
	// Reached: no watch claims until the next day (UTC) or a higher cap.
	Reached bool `json:"reached"`
}

// Today is the spend of now's day (UTC) in the event log in eventsDir
// against limit. A limit of 0 is no cap: nothing is read and Reached is
// false.
func Today(eventsDir string, limit float64, now time.Time) (State, error) {
	st := State{Day: now.UTC().Format("2006-01-02"), LimitUSD: limit}
	if limit <= 0 {
		return st, nil
	}
	spent, err := Spent(eventsDir, now)
	if err != nil {
		return st, err
	}
	st.SpentUSD = spent
	st.Reached = spent >= limit
	return st, nil
}

// Spent sums the cost of every event of now's day (UTC) that records a
// usage: one shard of the log, never the history.
func Spent(eventsDir string, now time.Time) (float64, error) {
	data, err := os.ReadFile(events.Path(eventsDir, now))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var line struct {
		Details struct {
			Usage *struct {
				CostUSD float64 `json:"cost_usd"`
			} `json:"usage"`
		} `json:"details"`
	}
	var sum float64
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		// Most lines are no run's: only those naming a cost are decoded.
		if !bytes.Contains(sc.Bytes(), []byte(`"cost_usd"`)) {
			continue
		}
		line.Details.Usage = nil
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Details.Usage == nil {
			continue
		}
		sum += line.Details.Usage.CostUSD
	}
	return usage.Round(sum), sc.Err()
}

// Raise is the cap the inbox's command proposes once it is reached: twice
// the old one, and at least what was spent plus the old one.
func Raise(st State) float64 {
	return usage.Round(max(2*st.LimitUSD, st.SpentUSD+st.LimitUSD))
}

// Format writes a dollar amount for config.yaml and messages: no trailing
// zeros, no exponent.
func Format(usd float64) string { return strconv.FormatFloat(usd, 'f', -1, 64) }

// RaiseCommand is the shell command that raises max_cost_usd_per_day to
// to: it edits config.yaml (at config, a path inside the workflow
// worktree) and commits it there, as a lead would by hand (burl-config(5));
// the watches claim again from their next round.
func RaiseCommand(worktree, config string, to float64) string {
	file := osx.ShellQuote(filepath.Join(worktree, config))
	amount := Format(to)
	return "sed -i.bak 's/^max_cost_usd_per_day:.*/max_cost_usd_per_day: " + amount + "/' " + file +
		" && rm " + file + ".bak" +
		" && git -C " + osx.ShellQuote(worktree) + " commit -q -m 'config: max_cost_usd_per_day " + amount + "' -- " + osx.ShellQuote(config)
}
