package task

import (
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/burl-dev/burl/pkg/usage"
)

// Keys of what a task's runs cost (DESIGN §18).
const (
	// KeyUsage maps agent name to that agent's summed runs on this task:
	// runs, input_tokens, output_tokens, cost_usd. watch adds each run's
	// usage at run_end; the event holds the run's own numbers.
	KeyUsage = "usage"
	// KeyMaxCostUSD caps what this task's runs may spend.
	KeyMaxCostUSD = "max_cost_usd"
)

// Usage is the task's usage table; a hand-edited entry that does not parse
// is left out rather than failing the task.
func (t *Task) Usage() usage.Table {
	out := usage.Table{}
	n := t.value(KeyUsage)
	if n == nil || n.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		var doc struct {
			Runs         int     `yaml:"runs"`
			InputTokens  int64   `yaml:"input_tokens"`
			OutputTokens int64   `yaml:"output_tokens"`
			CostUSD      float64 `yaml:"cost_usd"`
		}
		if n.Content[i+1].Decode(&doc) != nil {
			continue
		}
		out[n.Content[i].Value] = usage.Sum{Runs: doc.Runs, Usage: usage.Usage{
			InputTokens: doc.InputTokens, OutputTokens: doc.OutputTokens, CostUSD: doc.CostUSD}}
	}
	return out
}

// AddUsage records one run of agent.
func (t *Task) AddUsage(agent string, u usage.Usage) {
	tb := t.Usage()
	tb.Add(agent, u)
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	names := make([]string, 0, len(tb))
	for a := range tb {
		names = append(names, a)
	}
	sort.Strings(names)
	scalar := func(tag, v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v} }
	for _, a := range names {
		s := tb[a]
		m.Content = append(m.Content, scalar("!!str", a), &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle,
			Content: []*yaml.Node{
				scalar("!!str", "runs"), scalar("!!int", strconv.Itoa(s.Runs)),
				scalar("!!str", "input_tokens"), scalar("!!int", strconv.FormatInt(s.InputTokens, 10)),
				scalar("!!str", "output_tokens"), scalar("!!int", strconv.FormatInt(s.OutputTokens, 10)),
				scalar("!!str", "cost_usd"), scalar("!!float", strconv.FormatFloat(s.CostUSD, 'f', -1, 64)),
			}})
	}
	t.set(KeyUsage, m)
}

// OverBudgetMarker is in the reason of every block over a budget (watch
// writes it): the one record of an agent's max_cost_usd having applied,
// which the task file does not hold.
const OverBudgetMarker = "over max_cost_usd"

// Budget is the cap of this task's runs: its own max_cost_usd when it has
// one (a human's word on this task, which may raise an agent's), else
// agentCap; 0 when neither caps it.
func (t *Task) Budget(agentCap float64) float64 {
	if m := t.MaxCostUSD(); m > 0 {
		return m
	}
	return agentCap
}

// BudgetBlocked is what a BLOCKED task's runs spent when they spent its
// budget, ok false otherwise: over its own max_cost_usd, or, without one,
// blocked over an agent's (its reason says so). Unblocking alone would
// have it blocked again before its next run; raising its max_cost_usd
// (or cancelling it) is what works.
func (t *Task) BudgetBlocked() (spent float64, ok bool) {
	spent = t.Usage().Total().CostUSD
	if m := t.MaxCostUSD(); m > 0 {
		return spent, spent > m
	}
	return spent, strings.Contains(t.Str(KeyBlockedReason), OverBudgetMarker)
}

// MaxCostUSD is the task's own spending cap, 0 when it has none.
func (t *Task) MaxCostUSD() float64 {
	f, err := strconv.ParseFloat(t.Str(KeyMaxCostUSD), 64)
	if err != nil || f <= 0 {
		return 0
	}
	return f
}
