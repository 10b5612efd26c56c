package views

import (
	"bytes"
	"encoding/json"

	"github.com/burl-dev/burl/pkg/usage"
)

// usageOut is status --json's "usage": what the listed tasks' agent runs
// cost, in total and by agent, summed from each task's usage frontmatter.
type usageOut struct {
	usage.Sum
	ByAgent usage.Table `json:"by_agent"`
}

var usageKey = []byte(`"usage":{`)

// add sums a task's usage, read from its frontmatter JSON; only the few
// tasks agents ran are decoded.
func (u *usageOut) add(fields json.RawMessage) {
	if !bytes.Contains(fields, usageKey) {
		return
	}
	var doc struct {
		Usage map[string]usage.Sum `json:"usage"`
	}
	if json.Unmarshal(fields, &doc) != nil {
		return
	}
	for agent, s := range doc.Usage {
		a := u.ByAgent[agent]
		a.Runs += s.Runs
		a.Usage.Add(s.Usage)
		u.ByAgent[agent] = a
	}
	u.Sum = u.ByAgent.Total()
}
