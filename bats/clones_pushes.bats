#!/usr/bin/env bats
# DESIGN §25 (issue 40.11): with workflow_auto_push every workflow commit is
# a push to the one branch all clones race for. watch starts a task's first
# run in the commit of its claim (run_start behind claim) and logs a run's
# run_end in the commit of the submit that ends it: a task under watch
# costs three pushes, not five, its events the same, in the same order.

load helpers
load lifecycle
load watch

@test "watch with auto-push logs run_start in its claim's commit and a submitted run's run_end in its submit's commit: the events and their details unchanged, two pushes fewer" {
	new_repo
	git burl init >/dev/null
	sed -i -e 's/^workflow_auto_push: false/workflow_auto_push: true/' -e 's/^max_parallel: .*/max_parallel: 0/' .burl/.workflow/config.yaml
	git -C .burl commit -q -am "auto-push"
	git -C .burl push -q origin burl
	AGENTS="$BATS_TEST_TMPDIR/agents"
	mkdir -p "$AGENTS"
	agent work 'n=$(expr "${BURL_TASK#TASK-}" + 0); echo "$BURL_TASK" >"f$n.txt"; printf "{\"input_tokens\": 7, \"output_tokens\": 3, \"cost_usd\": 0.25}" >"$BURL_USAGE_FILE"'
	git burl add "task 1" --affects f1.txt >/dev/null
	git burl add "task 2" --affects f2.txt >/dev/null
	agents_yaml "agents:
  - name: bot
    command: [\"$AGENTS/work\"]
    max_parallel: 2
    timeout: 60s"
	git -C .burl push -q origin burl
	run git burl watch --once --interval 200ms
	[ "$status" -eq 0 ]
	git fetch -q origin
	local id sha end
	for id in TASK-001 TASK-002; do
		# The task's events on the remote, in the log's order.
		[ "$(remote_events | jq -r --arg id "$id" 'select(.task == $id) | .action' | tr '\n' ' ')" = "add claim run_start submit run_end " ]
		end=$(remote_events | jq -c --arg id "$id" 'select(.task == $id and .action == "run_end")')
		jq -e --arg id "$id" '.details | .result == "submitted" and .exit == 0 and .attempt == 1 and .agent == "bot"
			and (.duration_ms | type) == "number" and (.holder | startswith("bot@")) and (.log | startswith(".burl/.workflow/logs/" + $id + "/"))
			and .usage.input_tokens == 7 and .usage.cost_usd == 0.25' <<<"$end" >/dev/null
		jq -e '.details | .attempt == 1 and .agent == "bot" and (.holder | startswith("bot@")) and (.lease_expires | length > 0)' \
			<<<"$(remote_events | jq -c --arg id "$id" 'select(.task == $id and .action == "run_start")')" >/dev/null
		# The run's log is where run_start says.
		[ -e "$(remote_events | jq -r --arg id "$id" 'select(.task == $id and .action == "run_start") | .details.log')" ]
		# One commit holds the claim and the run_start.
		sha=$(git log --format=%H -S"\"task\":\"$id\",\"action\":\"run_start\"" origin/burl -- .workflow/events | head -n 1)
		[ -n "$sha" ]
		git show "$sha" -- .workflow/events | grep -q "^+.*\"task\":\"$id\",\"action\":\"claim\""
		# One commit holds the submit and the run_end.
		sha=$(git log --format=%H -S"\"task\":\"$id\",\"action\":\"run_end\"" origin/burl -- .workflow/events | head -n 1)
		[ -n "$sha" ]
		git show "$sha" -- .workflow/events | grep -q "^+.*\"task\":\"$id\",\"action\":\"submit\""
		# The task's usage sums went with it.
		git show "origin/burl:$(git ls-tree -r --name-only origin/burl .workflow/QA | grep "$id")" | grep -q 'cost_usd: 0.25'
	done
	! git log --format=%s origin/burl | grep -q '^burl: run_end '
	! git log --format=%s origin/burl | grep -q '^burl: run_start '
}

@test "watch's rounds pull the workflow branch at most once a second with auto-push, whatever --interval: every claim, submit and landing pulls for itself" {
	new_repo
	git burl init >/dev/null
	sed -i -e 's/^workflow_auto_push: false/workflow_auto_push: true/' .burl/.workflow/config.yaml
	git -C .burl commit -q -am "auto-push"
	AGENTS="$BATS_TEST_TMPDIR/agents"
	mkdir -p "$AGENTS"
	agent slow 'sleep 5; echo done >f1.txt'
	git burl add "task 1" --affects f1.txt >/dev/null
	agents_yaml "agents:
  - name: bot
    command: [\"$AGENTS/slow\"]
    timeout: 60s"
	git -C .burl push -q origin burl
	# A git first on PATH that notes each fetch watch itself runs (not
	# its verbs'); git-burl is run directly, as git would put its own
	# directory first on PATH.
	local real bin t0 t1
	real=$(command -v git)
	bin="$BATS_TEST_TMPDIR/gitbin"
	mkdir -p "$bin"
	cat >"$bin/git" <<SH
#!/bin/sh
case " \$* " in
*" fetch "*) tr '\\0' ' ' </proc/\$PPID/cmdline | grep -q git-burl-watch && echo fetch >>"$BATS_TEST_TMPDIR/fetches" ;;
esac
exec "$real" "\$@"
SH
	chmod +x "$bin/git"
	: >"$BATS_TEST_TMPDIR/fetches"
	t0=$(date +%s)
	PATH="$bin:$PATH" run git-burl watch --once --interval 100ms
	t1=$(date +%s)
	[ "$status" -eq 0 ]
	[ "$(bucket_of TASK-001)" = QA ]
	local n
	n=$(wc -l <"$BATS_TEST_TMPDIR/fetches")
	echo "# $n fetches by watch's rounds in $((t1 - t0)) s" >&3
	[ "$n" -ge 1 ]
	[ "$n" -le $((t1 - t0 + 3)) ]
}
