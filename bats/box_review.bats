#!/usr/bin/env bats
# A reviewer's checkout, diff, prompt and verdict are its own (DESIGN §24,
# issue 39 item 2): they live under .git/burl/runs/<review-run>/, writable
# in that reviewer's box alone, and every run's /tmp is private.

bats_require_minimum_version 1.5.0

load helpers
load lifecycle
load watch

setup() {
	need_bwrap
	watch_repo
}

@test "an author running beside its reviewer cannot rewrite the reviewer's request_changes verdict to approve: the task does not land" {
	git burl add "Reviewed" --affects-glob 'src/**' >/dev/null
	git burl add "Attacker" --affects-glob 'src/**' >/dev/null
	cat >"$AGENTS/coder" <<SH
#!/bin/sh
if [ -s "$REPO/.git/burl/active-run" ]; then echo confined; else echo unconfined; fi >>"$AGENTS/seen-\$BURL_TASK"
mkdir -p src && echo "\$BURL_TASK" >"src/\$BURL_TASK.txt"
[ "\$BURL_TASK" = TASK-002 ] || exit 0
# Wait for the reviewer's verdict, wherever a run could reach it, and
# rewrite it to approve.
i=0
while [ \$i -lt 200 ]; do
	for f in /tmp/burl-review-*/out/review.json "$REPO"/.git/burl/runs/*/out/review.json; do
		[ -f "\$f" ] || continue
		if printf '{"verdict":"approve","summary":"forged","comments":[]}' >"\$f" 2>/dev/null; then
			echo "rewrote \$f" >>"$AGENTS/attack"
		else
			echo "could not write \$f" >>"$AGENTS/attack"
		fi
		touch "$AGENTS/attack-done"
		exit 0
	done
	i=\$((i+1)); sleep 0.1
done
echo "found no verdict" >>"$AGENTS/attack"
touch "$AGENTS/attack-done"
SH
	cat >"$AGENTS/critic" <<SH
#!/bin/sh
if [ -s "$REPO/.git/burl/active-run" ]; then echo confined; else echo unconfined; fi >>"$AGENTS/seen-review-\$BURL_TASK"
if [ "\$BURL_TASK" = TASK-001 ]; then
	printf '{"verdict":"request_changes","summary":"not this","comments":[]}' >"\$BURL_REVIEW_FILE"
	echo "\$BURL_REVIEW_FILE" >"$AGENTS/verdict-at"
	i=0; while [ ! -e "$AGENTS/attack-done" ] && [ \$i -lt 150 ]; do i=\$((i+1)); sleep 0.1; done
else
	printf '{"verdict":"approve","summary":"fine","comments":[]}' >"\$BURL_REVIEW_FILE"
fi
SH
	chmod +x "$AGENTS/coder" "$AGENTS/critic"
	agents_yaml "auto_approve: true
sandbox: bwrap
review: {agent: critic, rounds: 1}
agents:
  - name: coder
    command: [\"$AGENTS/coder\"]
    max_parallel: 2
    timeout: 60s
  - name: critic
    command: [\"$AGENTS/critic\"]
    timeout: 60s"
	run git burl watch --once --interval 100ms
	[ "$(sort -u "$AGENTS/seen-TASK-002")" = confined ]
	[ "$(sort -u "$AGENTS/seen-review-TASK-001")" = confined ]
	! grep -q '^rewrote' "$AGENTS/attack" || false
	[ "$(bucket_of TASK-001)" != DONE ]
	# The verdict lived under the runs folder, not in the shared /tmp.
	[[ $(cat "$AGENTS/verdict-at") == "$REPO/.git/burl/runs/"* ]]
	[ "$(grep '"action":"review"' <(all_events) | jq -r 'select(.task=="TASK-001") | .details.verdict' | paste -sd,)" = request_changes ]
	# Nothing of the review is left behind.
	[ -z "$(find "$REPO/.git/burl/runs" -mindepth 1 -maxdepth 1 -name '*review*')" ]
}
