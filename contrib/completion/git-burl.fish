# fish completion for git-burl (burl: parallel agents on one repository).
#
# fish's git completion hands `git burl ...` to the completions of the
# git-burl command, defined here. install.sh puts this file in
# $PREFIX/share/fish/vendor_completions.d.
#
# Task IDs come from the file names in the workflow's bucket folders
# (<repo>/.burl/.workflow/<BUCKET>/TASK-001-slug.md): two git calls and a
# directory listing, never a burl command.

set -l __git_burl_verbs init add accept status inbox show claim worktree submit validate approve diff conflicts reject block unblock hold unhold stop edit cancel release trust watch drain mcp monitor stats log lock doctor clean sync verify hook hooks scope completion

# The workflow folder of the repository here; nothing outside a burl repository.
function __git_burl_workflow_dir
    set -l common (git rev-parse --path-format=absolute --git-common-dir 2>/dev/null); or return 1
    # The workflow worktree lives in the main worktree, which with the
    # standard layout is the parent of the common git dir.
    string match -q -- '*/.git' $common; or return 1
    set -l wt (git config --get burl.worktree 2>/dev/null); or set wt .burl
    echo (string replace -r '/\.git$' '' -- $common)/$wt/.workflow
end

# __git_burl_tasks BUCKET...: the IDs of the tasks in those buckets.
function __git_burl_tasks
    set -l dir (__git_burl_workflow_dir); or return
    for b in $argv
        # DONE keeps its tasks in month shards (DONE/2026-11/).
        for f in $dir/$b/TASK-*.md $dir/$b/*-*/TASK-*.md
            string match -r '^TASK-[0-9]+' -- (string replace -r '.*/' '' -- $f)
        end
    end
end

function __git_burl_locks
    set -l dir (__git_burl_workflow_dir); or return
    for f in $dir/locks/*.lock
        string replace -r '.*/(.*)\.lock$' '$1' -- $f
    end
end

complete -c git-burl -f
complete -c git-burl -n __fish_use_subcommand -l help -d 'Open the manual'
complete -c git-burl -n __fish_use_subcommand -l version -d 'Print the version'
complete -c git-burl -n __fish_use_subcommand -l exec-path -d 'Print the directory of the verb programs'
complete -c git-burl -n "not __fish_use_subcommand" -l json -d 'Print one JSON document on stdout'
complete -c git-burl -n "not __fish_use_subcommand" -l help -d 'Show the options'

complete -c git-burl -n __fish_use_subcommand -a init -d 'Create or attach the workflow branch and its .burl/ worktree'
complete -c git-burl -n __fish_use_subcommand -a add -d 'Create a task in READY'
complete -c git-burl -n __fish_use_subcommand -a status -d 'Count tasks per bucket and show what to run next'
complete -c git-burl -n __fish_use_subcommand -a inbox -d 'List what waits for a human, each with the command to run'
complete -c git-burl -n __fish_use_subcommand -a show -d "Print a task's metadata and body"
complete -c git-burl -n __fish_use_subcommand -a claim -d 'Take a READY task into DOING with its own branch and worktree'
complete -c git-burl -n __fish_use_subcommand -a worktree -d "Print a task's worktree path"
complete -c git-burl -n __fish_use_subcommand -a submit -d "Check a DOING task's commits and move it to QA"
complete -c git-burl -n __fish_use_subcommand -a validate -d 'Run every gate on a QA task and record the report'
complete -c git-burl -n __fish_use_subcommand -a approve -d 'Rebase a QA task onto main and move it to DONE'
complete -c git-burl -n __fish_use_subcommand -a reject -d 'Send a QA task back to READY with a reason'
complete -c git-burl -n __fish_use_subcommand -a block -d 'Move a task to BLOCKED'
complete -c git-burl -n __fish_use_subcommand -a unblock -d 'Move a BLOCKED task back to READY'
complete -c git-burl -n "__fish_seen_subcommand_from unblock" -l claim -d 'Claim it for yourself in the same step'
complete -c git-burl -n __fish_use_subcommand -a hold -d 'Keep a task from agents'
complete -c git-burl -n "__fish_seen_subcommand_from hold" -l reason -x -d 'Why agents must leave the task alone'
complete -c git-burl -n __fish_use_subcommand -a unhold -d 'Give a held task back to agents'
complete -c git-burl -n __fish_use_subcommand -a accept -d 'Accept a task an agent proposed, into READY'
complete -c git-burl -n "__fish_seen_subcommand_from accept" -a "(__git_burl_tasks PROPOSED)"
complete -c git-burl -n __fish_use_subcommand -a stop -d "End a DOING task's run under watch, its work kept"
complete -c git-burl -n "__fish_seen_subcommand_from stop" -l hold -d 'Hold it as well'
complete -c git-burl -n "__fish_seen_subcommand_from stop" -l reason -x -d 'Why (the watch that ran it says it)'
complete -c git-burl -n "__fish_seen_subcommand_from stop" -a "(__git_burl_tasks DOING)"
complete -c git-burl -n __fish_use_subcommand -a cancel -d 'End a task without landing it'
complete -c git-burl -n "__fish_seen_subcommand_from cancel" -l reason -x -d 'Why the task ends without landing'
complete -c git-burl -n __fish_use_subcommand -a edit -d "Change a task's title, description, criteria, priority, tags, dependencies or budget"
complete -c git-burl -n "__fish_seen_subcommand_from edit" -l title -x -d 'New title'
complete -c git-burl -n "__fish_seen_subcommand_from edit" -l description -x -d 'Replace the objective'
complete -c git-burl -n "__fish_seen_subcommand_from edit" -l ac -x -d 'Replace the acceptance criteria'
complete -c git-burl -n "__fish_seen_subcommand_from edit" -l add-ac -x -d 'Add an acceptance criterion'
complete -c git-burl -n "__fish_seen_subcommand_from edit" -l priority -x -a 'critical high medium low' -d 'Claim order'
complete -c git-burl -n "__fish_seen_subcommand_from edit" -l tags -x -d 'Replace the tags'
complete -c git-burl -n "__fish_seen_subcommand_from edit" -l add-tag -x -d 'Add a tag'
complete -c git-burl -n "__fish_seen_subcommand_from edit" -l remove-tag -x -d 'Remove a tag'
complete -c git-burl -n "__fish_seen_subcommand_from edit" -l depends-on -x -a "(__git_burl_tasks READY DOING QA DONE BLOCKED)" -d 'Add a dependency'
complete -c git-burl -n "__fish_seen_subcommand_from edit" -l remove-depends-on -x -a "(__git_burl_tasks READY DOING QA DONE BLOCKED)" -d 'Remove a dependency'
complete -c git-burl -n "__fish_seen_subcommand_from edit" -l max-cost-usd -x -d 'Cap what agent runs may spend'
complete -c git-burl -n "__fish_seen_subcommand_from edit" -l editor -d 'Edit the fields in your editor'
complete -c git-burl -n __fish_use_subcommand -a release -d 'Give a DOING task back to READY'
complete -c git-burl -n __fish_use_subcommand -a trust -d 'List and trust the commands from the workflow branch'
complete -c git-burl -n "__fish_seen_subcommand_from trust" -l yes -d 'Trust every listed command without asking'
complete -c git-burl -n __fish_use_subcommand -a watch -d 'Run the agents of agents.yaml on the backlog'
complete -c git-burl -n "__fish_seen_subcommand_from watch" -l once -d 'Exit when nothing is left to do'
complete -c git-burl -n "__fish_seen_subcommand_from watch" -l interval -x -d 'How often to look for work'
complete -c git-burl -n "__fish_seen_subcommand_from watch" -l print-command -x -d 'Print the command line watch runs for an agent'
complete -c git-burl -n __fish_use_subcommand -a drain -d 'Have every watch claim nothing new, finish its runs and exit'
complete -c git-burl -n "__fish_seen_subcommand_from drain" -l wait -d 'Return once every watch has exited'
complete -c git-burl -n "__fish_seen_subcommand_from approve" -l all -d 'Approve every QA task in queue order, builds batched'
complete -c git-burl -n "__fish_seen_subcommand_from approve" -l dry-run -d "With --all: show the queue's order and batches, change nothing"
complete -c git-burl -n "__fish_seen_subcommand_from approve" -l accept-landed -d 'Accept work that reached main outside burl: gates run on it, then DONE'
complete -c git-burl -n __fish_use_subcommand -a mcp -d 'Serve burl to agents that speak the Model Context Protocol'
complete -c git-burl -n "__fish_seen_subcommand_from mcp" -l dir -r -a '(__fish_complete_directories)' -d 'Act in DIR when a call names no cwd, rather than in the roots of the client'
complete -c git-burl -n __fish_use_subcommand -a monitor -d 'Show a live board of the workflow, or write an HTML report'
complete -c git-burl -n "__fish_seen_subcommand_from monitor" -l once -d 'Print one plain-text snapshot and exit'
complete -c git-burl -n "__fish_seen_subcommand_from monitor" -l html -r -F -d 'Write a self-contained HTML report'
complete -c git-burl -n __fish_use_subcommand -a log -d 'Show the event log'
complete -c git-burl -n __fish_use_subcommand -a lock -d 'List locks, or clear one left by a dead process'
complete -c git-burl -n __fish_use_subcommand -a doctor -d 'Check the workflow for inconsistencies'
complete -c git-burl -n __fish_use_subcommand -a clean -d 'Remove worktrees and branches of DONE tasks'
complete -c git-burl -n __fish_use_subcommand -a sync -d 'Fetch and push the workflow and task branches'
complete -c git-burl -n __fish_use_subcommand -a verify -d 'Check that every commit of main came through burl'
complete -c git-burl -n __fish_use_subcommand -a hook -d 'Entry points called by the installed git hooks'
complete -c git-burl -n __fish_use_subcommand -a hooks -d 'Install, uninstall or inspect the git hooks'
complete -c git-burl -n __fish_use_subcommand -a scope -d "Change a READY or DOING task's declared scope, with a reason"
complete -c git-burl -n __fish_use_subcommand -a completion -d 'Print the completion script for bash, zsh or fish'
complete -c git-burl -n __fish_use_subcommand -a diff -d "Show a task's change with git diff"
complete -c git-burl -n __fish_use_subcommand -a stats -d 'Which agent, which model is worth its money'
complete -c git-burl -n "__fish_seen_subcommand_from stats" -l since -x -d 'Count only what happened since'
complete -c git-burl -n "__fish_seen_subcommand_from stats" -l by -x -a 'agent model tag' -d 'A row per agent, model or tag'
complete -c git-burl -n __fish_use_subcommand -a conflicts -d 'Predict conflicts between in-flight tasks and with main'

# Task IDs, from the buckets each verb takes them from.
complete -c git-burl -n "__fish_seen_subcommand_from claim" -a "(__git_burl_tasks READY)"
complete -c git-burl -n "__fish_seen_subcommand_from claim" -l force -d 'Claim a held task (a human, outside any watch run)'
complete -c git-burl -n "__fish_seen_subcommand_from submit release" -a "(__git_burl_tasks DOING)"
complete -c git-burl -n "__fish_seen_subcommand_from validate approve reject" -a "(__git_burl_tasks QA)"
complete -c git-burl -n "__fish_seen_subcommand_from unblock" -a "(__git_burl_tasks BLOCKED)"
complete -c git-burl -n "__fish_seen_subcommand_from hold unhold" -a "(__git_burl_tasks READY BLOCKED DOING)"
complete -c git-burl -n "__fish_seen_subcommand_from edit cancel" -a "(__git_burl_tasks READY DOING QA BLOCKED PROPOSED)"
complete -c git-burl -n "__fish_seen_subcommand_from scope" -a "(__git_burl_tasks READY DOING BLOCKED QA)"
complete -c git-burl -n "__fish_seen_subcommand_from completion; and not __fish_seen_subcommand_from bash zsh fish" -a 'bash zsh fish'
complete -c git-burl -n "__fish_seen_subcommand_from show block worktree diff" -a "(__git_burl_tasks READY DOING QA DONE BLOCKED)"

complete -c git-burl -n "__fish_seen_subcommand_from init" -l main-branch -x -d 'Branch approved work lands on'
complete -c git-burl -n "__fish_seen_subcommand_from init" -l remote -x -d 'Remote to fetch main from and push to'
complete -c git-burl -n "__fish_seen_subcommand_from init" -l hooks -d 'Also install the commit-msg and pre-push hooks'

complete -c git-burl -n "__fish_seen_subcommand_from add" -l priority -x -a 'critical high medium low' -d 'Claim order'
complete -c git-burl -n "__fish_seen_subcommand_from add" -l affects -r -F -d 'A file or directory the task may change'
complete -c git-burl -n "__fish_seen_subcommand_from add" -l affects-glob -x -d 'A glob of files the task may change'
complete -c git-burl -n "__fish_seen_subcommand_from add" -l must-not-touch -x -d 'A glob the task must not change'
complete -c git-burl -n "__fish_seen_subcommand_from add" -l depends-on -x -a "(__git_burl_tasks READY DOING QA DONE BLOCKED)" -d 'A task that must be DONE first'
complete -c git-burl -n "__fish_seen_subcommand_from add" -l tags -x -d 'Free-form tags'
complete -c git-burl -n "__fish_seen_subcommand_from add" -l propose -d 'Propose it: PROPOSED until a human accepts it'
complete -c git-burl -n "__fish_seen_subcommand_from add" -l discovered-from -x -a "(__git_burl_tasks READY DOING QA DONE BLOCKED)" -d 'The task whose work showed it is needed'
complete -c git-burl -n "__fish_seen_subcommand_from add" -l verify -x -d 'Extra command validate runs'
complete -c git-burl -n "__fish_seen_subcommand_from add" -l body-file -r -F -d 'Markdown body of the task'
complete -c git-burl -n "__fish_seen_subcommand_from add" -l from -r -F -d 'Add every task of a YAML, JSON or markdown file'
complete -c git-burl -n "__fish_seen_subcommand_from add" -l description -r -d 'What done looks like (the body objective)'
complete -c git-burl -n "__fish_seen_subcommand_from add" -l ac -r -d 'An acceptance criterion; repeatable'

complete -c git-burl -n "__fish_seen_subcommand_from scope" -l affects -r -F -d 'Add a file or directory the task may change'
complete -c git-burl -n "__fish_seen_subcommand_from scope" -l affects-glob -x -d 'Add a glob of files the task may change'
complete -c git-burl -n "__fish_seen_subcommand_from scope" -l must-not-touch -x -d 'Add a glob the task must not change'
complete -c git-burl -n "__fish_seen_subcommand_from scope" -l remove -x -d 'Remove a path or glob from the scope'
complete -c git-burl -n "__fish_seen_subcommand_from scope" -l grant -d "Grant the task's open scope request"
complete -c git-burl -n "__fish_seen_subcommand_from scope" -l deny -x -d "Refuse the task's open scope request, saying why"
complete -c git-burl -n "__fish_seen_subcommand_from worktree" -l ensure -d 'Recreate the worktree when it is missing'
complete -c git-burl -n "__fish_seen_subcommand_from reject block release scope" -l reason -x -d 'Why (recorded in the task)'

complete -c git-burl -n "__fish_seen_subcommand_from status" -l open -d 'List only tasks not DONE'
complete -c git-burl -n "__fish_seen_subcommand_from status" -l bucket -x -a 'READY DOING QA DONE BLOCKED' -d 'List only tasks in this bucket'
complete -c git-burl -n "__fish_seen_subcommand_from status" -l since -x -d 'List only tasks changed since (RFC 3339, date, 2h)'
complete -c git-burl -n "__fish_seen_subcommand_from log" -l task -x -a "(__git_burl_tasks READY DOING QA DONE BLOCKED)" -d 'Only events of this task'
complete -c git-burl -n "__fish_seen_subcommand_from log" -l action -x -a 'init add claim submit validate approve reject block unblock hold unhold edit cancel release lock_clear lock_cleared clean repair sync scope scope_request scope_denied stop run_start run_end lease lease_expired pr_open pr_merged pr_closed pr_changes_requested review review_start checks_failed run_tampered restack accept drain' -d 'Only events of this action'
complete -c git-burl -n "__fish_seen_subcommand_from log" -l since -x -d 'Only events since a time, a date or a duration ago'
complete -c git-burl -n "__fish_seen_subcommand_from log" -l follow -d 'Keep printing new events'

complete -c git-burl -n "__fish_seen_subcommand_from lock; and not __fish_seen_subcommand_from list clear" -a 'list clear'
complete -c git-burl -n "__fish_seen_subcommand_from clear" -a "(__git_burl_locks)"
complete -c git-burl -n "__fish_seen_subcommand_from lock hooks doctor clean" -l force -d 'Required for destructive actions; see --help'
complete -c git-burl -n "__fish_seen_subcommand_from doctor" -l repair -d 'Apply the safe repairs'
complete -c git-burl -n "__fish_seen_subcommand_from clean" -l yes -d 'Remove, rather than list'
complete -c git-burl -n "__fish_seen_subcommand_from sync" -l pull -d 'Only fetch'
complete -c git-burl -n "__fish_seen_subcommand_from sync" -l push -d 'Only push'
complete -c git-burl -n "__fish_seen_subcommand_from sync" -l settle -d 'Only settle the open pull requests'
complete -c git-burl -n "__fish_seen_subcommand_from verify" -l allow -x -d 'Accept this commit whatever it is'
complete -c git-burl -n "__fish_seen_subcommand_from verify" -l signed -d 'Also require good signatures'

complete -c git-burl -n "__fish_seen_subcommand_from hook; and not __fish_seen_subcommand_from commit-msg pre-push" -a 'commit-msg pre-push'
complete -c git-burl -n "__fish_seen_subcommand_from hooks; and not __fish_seen_subcommand_from install uninstall status" -a 'install uninstall status'
