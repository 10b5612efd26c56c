// Package catalog lists burl's verbs with their one-line summaries. It has
// no dependencies so that the git-burl dispatcher, which only needs names,
// stays as small and quick to start as a hello-world.
package catalog

// Verb is one git-burl-<name> binary.
type Verb struct {
	Name    string
	Usage   string // argument synopsis after "git burl <name>"
	Summary string
}

// Verbs in the order help lists them: setup, tasks, work, QA, recovery.
var Verbs = []Verb{
	{"init", "[--main-branch NAME] [--remote NAME] [--hooks]", "Create or attach the workflow branch and its .burl/ worktree"},
	{"add", `"TITLE" [--priority P] [--affects PATH]... [--affects-glob GLOB]... [--must-not-touch GLOB]... [--depends-on ID]... [--tags TAG]... [--verify CMD] [--description TEXT] [--ac TEXT]... [--body-file FILE] [--propose [--discovered-from ID]] | --from FILE`, "Create a task in READY (--from: many, from a YAML, JSON or markdown file, in one commit; --propose, or inside a watch run: in PROPOSED, until a human accepts it)"},
	{"status", "[--open | --bucket BUCKET]... [--since WHEN] [--json]", "Count tasks per bucket; show locked, stale and stalled tasks and what to run next"},
	{"accept", "ID", "Accept a task an agent proposed: PROPOSED to READY, where agents claim it"},
	{"inbox", "[--json]", "List what waits for a human (blocked, held, scope requests, dead locks, untrusted commands), each with the command to run"},
	{"show", "[ID]", "Print a task's metadata and body"},
	{"claim", "[ID [--force]]", "Take a READY task (the next one by priority when no ID is given) into DOING, with its own branch and worktree (--force: a held one, by a human)"},
	{"scope", `ID [--affects PATH]... [--affects-glob GLOB]... [--must-not-touch GLOB]... [--remove P]... --reason TEXT | ID --grant|--deny REASON`, "Change a READY or DOING task's declared scope, with the reason recorded; answer its agent's scope request"},
	{"worktree", "[ID] [--ensure]", "Print a task's worktree path (recreate it from its branch with --ensure)"},
	{"submit", "[ID]", "Check scope and stubs of a DOING task's commits and move it to QA"},
	{"validate", "[ID]", "Run every gate (scope, stubs, build, verify) on a QA task and record the report"},
	{"approve", "ID | --all [--dry-run] | --accept-landed ID", "Rebase a QA task (or every one, builds batched) onto main, validate again, fast-forward main and move it to DONE"},
	{"diff", "ID [GIT-DIFF-OPTION]... [-- PATH...] [--json]", "Show a task's change with git diff: what landed, what was submitted, or what its branch holds past its base"},
	{"conflicts", "[--json]", "Predict textual conflicts between in-flight tasks, and with main, from their real diffs"},
	{"reject", "ID --reason TEXT", "Send a QA task back to READY with a reason (BLOCKED after qa_max_attempts)"},
	{"block", "ID --reason TEXT", "Move a task to BLOCKED"},
	{"unblock", "ID [--claim]", "Move a BLOCKED task back to READY once its dependencies are DONE (--claim: into DOING, yours, in one step)"},
	{"hold", "ID --reason TEXT", "Keep a task from agents: watch and claim without an ID pass it over (a DOING task is released and held)"},
	{"unhold", "ID", "Give a held task back to agents"},
	{"stop", "ID [--hold] [--reason TEXT]", "End a DOING task's run under watch within one round, its work kept on its branch; back to READY (--hold: held)"},
	{"edit", `ID [--title TEXT] [--description TEXT] [--ac TEXT]... [--add-ac TEXT]... [--priority P] [--tags TAG]... [--add-tag TAG]... [--remove-tag TAG]... [--depends-on ID]... [--remove-depends-on ID]... [--max-cost-usd USD] | ID --editor`, "Change a task's title, description, acceptance criteria, priority, tags, dependencies or budget (scope: git burl scope)"},
	{"cancel", "ID --reason TEXT", "End a task without landing it: DONE with resolution: cancelled"},
	{"release", "[ID] [--reason TEXT]", "Give a DOING task back to READY, keeping its branch and worktree"},
	{"trust", "[--yes] [--json]", "List the commands from the workflow branch not trusted on this machine, and trust them"},
	{"watch", "[--once] [--interval DURATION] [--json]", "Run the agents of agents.yaml on the backlog: claim, prompt, run, commit, submit, approve"},
	{"drain", "[--wait] [--json]", "Have every watch of the repository claim nothing new, finish its runs and exit"},
	{"mcp", "[--dir DIR]", "Serve burl to agents that speak the Model Context Protocol, on stdin and stdout: one tool, burl, and the task files"},
	{"monitor", "[--once] [--html FILE]", "Show a live board of the workflow (a plain-text snapshot when not on a terminal; --html writes a report)"},
	{"stats", "[--since WHEN] [--by agent|model|tag] [--json]", "Which agent, which model is worth its money: landed, first-pass yield, rounds, cost per landed task counting all spend, lead times, human touches"},
	{"log", "[--task ID] [--action A] [--since WHEN] [--follow]", "Show the workflow's event log"},
	{"lock", "[list] | clear ID|workflow|claim|main --force", "List locks, or clear one left behind by a dead process"},
	{"doctor", "[--repair --force]", "Check the workflow for inconsistencies, and repair the safe ones"},
	{"clean", "[--yes] [--force]", "Remove worktrees and branches of DONE tasks and orphans"},
	{"verify", "[A..B | REV] [--allow REV]... [--signed] [--json]", "Check that every commit of main's first-parent history came through burl: its landing record, the gated tree, the workflow's record of it"},
	{"sync", "[--pull | --push | --settle]", "Fetch and push the workflow branch and task branches, to pause here and resume elsewhere"},
	{"hook", "commit-msg FILE | pre-push REMOTE URL", "Entry points called by the installed git hooks"},
	{"hooks", "install [--force] | uninstall | status", "Install the commit-msg and pre-push hooks that enforce the gates"},
	{"completion", "bash | zsh | fish", "Print the shell completion script (e.g. source <(git burl completion bash))"},
}

// Find returns the verb called name.
func Find(name string) (Verb, bool) {
	for _, v := range Verbs {
		if v.Name == name {
			return v, true
		}
	}
	return Verb{}, false
}
