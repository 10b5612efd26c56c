// Package usage is what an agent's runs cost: tokens and dollars, read from
// the file an agent may write ($BURL_USAGE_FILE) and from the documented
// machine-readable output of the agent CLIs burl has presets for, found in
// the run log. Nothing here estimates: a run that reports nothing has no
// usage, not a zero one.
package usage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// Usage is one run's or a sum of runs' consumption.
type Usage struct {
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	Model        string  `json:"model,omitempty"`
	// Source says where a run's numbers came from: "usage_file",
	// "claude-code" or "codex"; empty on sums.
	Source string `json:"source,omitempty"`
}

// Zero reports a usage with nothing in it.
func (u Usage) Zero() bool { return u.InputTokens == 0 && u.OutputTokens == 0 && u.CostUSD == 0 }

// Add sums b into u. The model survives only while all runs agree.
func (u *Usage) Add(b Usage) {
	if u.Zero() && u.Model == "" {
		u.Model = b.Model
	} else if u.Model != b.Model {
		u.Model = ""
	}
	u.InputTokens += b.InputTokens
	u.OutputTokens += b.OutputTokens
	u.CostUSD = Round(u.CostUSD + b.CostUSD)
	u.Source = ""
}

// Round keeps dollars to a hundredth of a cent: sums of many runs must not
// grow binary-fraction noise in task files and JSON.
func Round(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// Dollars formats a cost for people.
func Dollars(f float64) string { return fmt.Sprintf("$%.2f", f) }

// fileDoc is the documented shape of $BURL_USAGE_FILE (burl-agents(5)).
type fileDoc struct {
	InputTokens  *int64   `json:"input_tokens"`
	OutputTokens *int64   `json:"output_tokens"`
	CostUSD      *float64 `json:"cost_usd"`
	Model        string   `json:"model"`
}

// ErrNone is a source that holds no usage.
var ErrNone = errors.New("no usage reported")

// FromFile reads $BURL_USAGE_FILE: one JSON object, or one per line (an
// agent that appends a line per model call), summed. A malformed file is an
// error naming the line, so the agent's author can fix it.
func FromFile(path string) (Usage, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Usage{}, ErrNone
	}
	if err != nil {
		return Usage{}, err
	}
	return FromBytes(data, path)
}

// MaxFile bounds a usage file: a line per model call of a long run is
// far less.
const MaxFile = 16 << 20

// FromBytes is FromFile on the file's content; name names it in errors.
func FromBytes(data []byte, name string) (Usage, error) {
	path := name
	if len(data) > MaxFile {
		return Usage{}, fmt.Errorf("%s: larger than %d bytes: not read as usage", path, MaxFile)
	}
	var sum Usage
	found := false
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var d fileDoc
		err := dec.Decode(&d)
		if err == io.EOF {
			break
		}
		if err != nil {
			return Usage{}, fmt.Errorf("%s: not the JSON burl-agents(5) documents ({\"input_tokens\",\"output_tokens\",\"cost_usd\",\"model\"}): %v", path, err)
		}
		u := Usage{Model: d.Model}
		if d.InputTokens != nil {
			u.InputTokens = *d.InputTokens
		}
		if d.OutputTokens != nil {
			u.OutputTokens = *d.OutputTokens
		}
		if d.CostUSD != nil {
			u.CostUSD = *d.CostUSD
		}
		if !sane(u) {
			return Usage{}, fmt.Errorf("%s: negative or non-finite numbers are not usage", path)
		}
		sum.Add(u)
		found = true
	}
	if !found {
		return Usage{}, ErrNone
	}
	sum.Source = "usage_file"
	return sum, nil
}

// claudeResult is the final object of Claude Code's `--output-format json`
// (and the last line of stream-json): type "result" with total_cost_usd and
// usage.
type claudeResult struct {
	Type         string   `json:"type"`
	TotalCostUSD *float64 `json:"total_cost_usd"`
	Usage        *struct {
		InputTokens              int64 `json:"input_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
	} `json:"usage"`
	ModelUsage map[string]json.RawMessage `json:"modelUsage"`
}

// codexEvent is a line of `codex exec --json`: turn.completed carries the
// turn's usage.
type codexEvent struct {
	Type  string `json:"type"`
	Usage *struct {
		InputTokens       int64 `json:"input_tokens"`
		CachedInputTokens int64 `json:"cached_input_tokens"`
		OutputTokens      int64 `json:"output_tokens"`
	} `json:"usage"`
}

// maxLine bounds one log line parsed as JSON: a result object is small; a
// longer line is output, not usage.
const maxLine = 4 << 20

// FromLog scans a run log for the usage the agent CLIs print. Claude Code
// reports the whole session once (the last result object wins); Codex
// reports each turn (summed). Cached input tokens count as input: they are
// what the model read.
func FromLog(path string) (Usage, error) {
	f, err := os.Open(path)
	if err != nil {
		return Usage{}, err
	}
	defer f.Close()
	return Scan(f)
}

// Scan is FromLog on a reader.
func Scan(r io.Reader) (Usage, error) {
	var claude, codex Usage
	haveClaude, haveCodex := false, false
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			line = bytes.TrimSpace(line)
			if len(line) > 1 && line[0] == '{' && bytes.Contains(line, []byte(`"usage"`)) {
				if u, ok := parseClaude(line); ok {
					claude, haveClaude = u, true
				} else if u, ok := parseCodex(line); ok {
					codex.Add(u)
					haveCodex = true
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return Usage{}, err
		}
	}
	switch {
	case haveClaude:
		claude.Source = "claude-code"
		return claude, nil
	case haveCodex:
		codex.Source = "codex"
		return codex, nil
	}
	return Usage{}, ErrNone
}

// readLine returns one line without its newline; a line longer than
// maxLine is skipped whole (returned empty).
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	over := false
	for {
		frag, err := br.ReadSlice('\n')
		if !over {
			if len(buf)+len(frag) > maxLine {
				over, buf = true, nil
			} else {
				buf = append(buf, frag...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), err
	}
}

func parseClaude(line []byte) (Usage, bool) {
	var r claudeResult
	if json.Unmarshal(line, &r) != nil || r.Type != "result" || r.Usage == nil {
		return Usage{}, false
	}
	u := Usage{
		InputTokens:  r.Usage.InputTokens + r.Usage.CacheCreationInputTokens + r.Usage.CacheReadInputTokens,
		OutputTokens: r.Usage.OutputTokens,
	}
	if r.TotalCostUSD != nil {
		u.CostUSD = Round(*r.TotalCostUSD)
	}
	if len(r.ModelUsage) == 1 {
		for m := range r.ModelUsage {
			u.Model = m
		}
	}
	return u, sane(u)
}

// sane refuses numbers no real run reports: a log is the agent's output and
// must not make a task's spend shrink.
func sane(u Usage) bool {
	return u.InputTokens >= 0 && u.OutputTokens >= 0 && u.CostUSD >= 0 && !math.IsNaN(u.CostUSD) && !math.IsInf(u.CostUSD, 0)
}

func parseCodex(line []byte) (Usage, bool) {
	var e codexEvent
	if json.Unmarshal(line, &e) != nil || e.Type != "turn.completed" || e.Usage == nil {
		return Usage{}, false
	}
	// cached_input_tokens is a part of input_tokens in Codex's accounting.
	u := Usage{InputTokens: e.Usage.InputTokens, OutputTokens: e.Usage.OutputTokens}
	return u, sane(u)
}

// Of is a run's usage: the usage file when the agent wrote one (it knows
// best), else what the run log shows. ErrNone when neither says anything.
// A malformed usage file is returned as an error with the log's usage, so
// the caller can report it and still record what is known.
func Of(usageFile, runLog string) (Usage, error) {
	return of(func() (Usage, error) { return FromFile(usageFile) }, func() (Usage, error) { return FromLog(runLog) })
}

// OfRun is Of on what a run left, as watch holds it: the usage file's
// content (nil when it wrote none) and the run log.
func OfRun(usageFile []byte, name string, runLog io.Reader) (Usage, error) {
	file := func() (Usage, error) {
		if usageFile == nil {
			return Usage{}, ErrNone
		}
		return FromBytes(usageFile, name)
	}
	return of(file, func() (Usage, error) { return Scan(runLog) })
}

func of(file, log func() (Usage, error)) (Usage, error) {
	u, err := file()
	if err == nil {
		return u, nil
	}
	lu, lerr := log()
	if errors.Is(err, ErrNone) {
		return lu, lerr
	}
	if lerr != nil {
		lu = Usage{}
	}
	return lu, err
}

// Sum is a usage total with the number of runs that reported any.
type Sum struct {
	Runs int `json:"runs"`
	Usage
}

// Table is sums by agent name.
type Table map[string]Sum

// Add records one run of agent.
func (t Table) Add(agent string, u Usage) {
	s := t[agent]
	s.Runs++
	s.Usage.Add(u)
	t[agent] = s
}

// Total is the sum over all agents.
func (t Table) Total() Sum {
	var s Sum
	for _, a := range t {
		s.Runs += a.Runs
		s.Usage.Add(a.Usage)
	}
	return s
}

// Short is "1.2k in / 300 out, $0.42" for boards and logs.
func (u Usage) Short() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s in / %s out", count(u.InputTokens), count(u.OutputTokens))
	if u.CostUSD > 0 {
		b.WriteString(", " + Dollars(u.CostUSD))
	}
	return b.String()
}

func count(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
