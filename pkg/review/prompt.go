package review

import (
	"fmt"
	"strings"

	"github.com/burl-dev/burl/pkg/gitx"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Schema is the verdict as a JSON Schema, in the strict form tools that
// hold an answer to a schema accept (codex exec --output-schema): every
// property required, nothing else allowed.
const Schema = `{
  "type": "object",
  "properties": {
    "verdict": {"type": "string", "enum": ["approve", "request_changes"]},
    "summary": {"type": "string"},
    "comments": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "path": {"type": "string"},
          "line": {"type": "integer"},
          "body": {"type": "string"}
        },
        "required": ["path", "line", "body"],
        "additionalProperties": false
      }
    }
  },
  "required": ["verdict", "summary", "comments"],
  "additionalProperties": false
}
`

// inlineDiff bounds the diff written into the prompt itself: a prompt is
// one argv element for most tools ({prompt}), and Linux refuses one over
// 128 KiB. The whole diff is in its file.
const inlineDiff = 48 << 10

// Diff is what a reviewer reviews: the patch base..head and the files it
// touches (renames as a deletion and an addition, so a comment may name
// either path). External diff and textconv drivers stay off: the worktree's
// attributes are the author's.
func Diff(g gitx.Git, base, head string) (patch string, paths []string, err error) {
	out, err := g.RunInput(nil, "diff", "--no-ext-diff", "--no-textconv", "--no-color", "--no-renames", base, head, "--")
	if err != nil {
		return "", nil, err
	}
	names, err := g.RunInput(nil, "diff", "--name-only", "--no-renames", "-z", base, head, "--")
	if err != nil {
		return "", nil, err
	}
	for _, p := range strings.Split(string(names), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return string(out), paths, nil
}

// Input is what a reviewer is given for one review.
type Input struct {
	Entry *workflow.Entry
	// Worktree is the task's worktree, at Head, which the reviewer reads.
	Worktree string
	Base     string
	Head     string
	Patch    string
	Paths    []string
	// DiffFile holds Patch; ReviewFile is $BURL_REVIEW_FILE.
	DiffFile, ReviewFile string
	// Gates are the gate results on Head, as the QA report has them.
	Gates string
	// Round of Rounds: how many times changes may still be requested.
	Round, Rounds int
}

// Prompt is the markdown a reviewer is given (DESIGN §21): what it
// reviews and where, that it must change nothing, and the verdict to
// write where, in words a CLI agent (claude, codex) follows unattended.
func Prompt(in Input) string {
	t := in.Entry.Task
	var b strings.Builder
	fmt.Fprintf(&b, "# Review of %s: %s\n\n", t.ID(), t.Title())
	fmt.Fprintf(&b, "You are the reviewer of task %s. Another agent did the work; you decide whether it lands. This is review round %d of %d.\n\n", t.ID(), in.Round, in.Rounds)
	fmt.Fprintf(&b, "The work is the diff %s..%s (branch %s). The directory %s is a checkout of it made for this review: a git repository of its own, at the submitted head, where `git diff %s..HEAD`, `git log` and `git show` work.\n\n", gitx.Short(in.Base), gitx.Short(in.Head), t.Branch(), in.Worktree, gitx.Short(in.Base))
	b.WriteString("You only review. You may read everything and build or run the tests in that checkout, but whatever you change or commit there is thrown away; do not change the task's worktree or the repository, and do not run `git burl`: the review runs read-only, a write there fails, and the work lands only as it was submitted.\n\n")

	b.WriteString("## Your verdict\n\n")
	fmt.Fprintf(&b, "Write one JSON object, and nothing else, to the file `%s` (its path is also in the environment variable BURL_REVIEW_FILE):\n\n", in.ReviewFile)
	b.WriteString("```json\n{\"verdict\": \"request_changes\", \"summary\": \"One or a few sentences: what you found.\", \"comments\": [{\"path\": \"src/example.go\", \"line\": 12, \"body\": \"What is wrong here and what to do instead.\"}]}\n```\n\n")
	b.WriteString("- `verdict`: `\"approve\"` when the work does what the task asks and is fit to land as it is; `\"request_changes\"` when it must change first.\n")
	b.WriteString("- `summary`: a non-empty string. With request_changes the author reads it in its next attempt.\n")
	fmt.Fprintf(&b, "- `comments`: a list, empty for none. Each names a file of the diff by its path as the diff has it (%s), a line number (an integer, 1 or more) in that file as submitted, and a `body` saying what to change.\n", quoted(in.Paths))
	b.WriteString("- A missing file, anything but that JSON object, another verdict, a path outside the diff or a line that is not a number fails the review: it is run again, and then the task waits for a human.\n\n")

	b.WriteString("## The diff\n\n")
	fmt.Fprintf(&b, "The whole diff is in `%s`.", in.DiffFile)
	patch := in.Patch
	if len(patch) > inlineDiff {
		cut := strings.LastIndex(patch[:inlineDiff], "\n") + 1
		fmt.Fprintf(&b, " Its first %d bytes (of %d) follow; read the rest from the file.", cut, len(patch))
		patch = patch[:cut]
	}
	b.WriteString("\n\n````diff\n")
	b.WriteString(strings.TrimRight(patch, "\n"))
	b.WriteString("\n````\n")

	b.WriteString("\n## Gate results\n\n")
	if g := strings.TrimSpace(in.Gates); g != "" {
		b.WriteString("The deterministic gates passed on this head:\n\n")
		b.WriteString(g)
		b.WriteString("\n")
	} else {
		b.WriteString("The scope and stub gates passed when the work was submitted.\n")
	}

	file, _ := task.StripPlaceholders(string(t.Bytes()))
	b.WriteString("\n## The task\n\n````markdown\n")
	b.WriteString(file)
	b.WriteString("\n````\n")
	return b.String()
}

func quoted(paths []string) string {
	if len(paths) == 0 {
		return "it touches no file"
	}
	out := make([]string, 0, len(paths))
	for i, p := range paths {
		if i == 20 {
			out = append(out, fmt.Sprintf("and %d more", len(paths)-20))
			break
		}
		out = append(out, "`"+p+"`")
	}
	return strings.Join(out, ", ")
}

// LastEntry is the newest entry of t's QA report whose title starts with
// one of titles ("Validate PASS"), "" when it has none.
func LastEntry(t *task.Task, titles ...string) string {
	report := t.Section("QA Report")
	best := -1
	for _, title := range titles {
		if i := strings.LastIndex("\n"+report, "\n### "+title); i > best {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	entry := report[best:]
	if end := strings.Index(entry[1:], "\n### "); end >= 0 {
		entry = entry[:end+1]
	}
	return strings.TrimSpace(entry)
}
