package watch

import (
	"time"

	"github.com/burl-dev/burl/pkg/budget"
	"github.com/burl-dev/burl/pkg/usage"
	"github.com/burl-dev/burl/pkg/workflow"
)

// withinBudget reports whether this round may claim under config
// max_cost_usd_per_day (DESIGN §27): once the day's runs cost that much,
// no watch claims until the next day (UTC) or a higher cap; what runs
// finishes. The stop is said once, and so is the end of it.
func (s *supervisor) withinBudget(w *workflow.Workflow) bool {
	st, err := budget.Today(w.EventsDir(), w.Config.MaxCostUSDPerDay, time.Now())
	if err != nil {
		s.sayOnce("budget-err:"+err.Error(), "cannot read today's spend for max_cost_usd_per_day: %v; claiming as if under it", err)
		return true
	}
	if !st.Reached {
		if s.spentToday {
			s.spentToday = false
			s.logf("budget: today's runs cost %s of max_cost_usd_per_day %s: claiming again", usage.Dollars(st.SpentUSD), usage.Dollars(st.LimitUSD))
		}
		return true
	}
	if !s.spentToday {
		s.spentToday = true
		s.logf("budget: today's runs (%s, UTC) cost %s, max_cost_usd_per_day is %s: claiming nothing new until tomorrow (UTC) or a higher cap; running work finishes (git burl inbox has the command)",
			st.Day, usage.Dollars(st.SpentUSD), usage.Dollars(st.LimitUSD))
	}
	return false
}
