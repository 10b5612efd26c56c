// Package task is the task file: markdown with YAML frontmatter. It parses
// and rewrites files so that everything a caller did not change (unknown
// keys, key order, comments, the body, CRLF line endings) survives byte for
// byte: a rewrite replaces only the lines of the keys it sets.
package task

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Frontmatter keys burl reads and writes.
const (
	KeyID            = "id"
	KeyTitle         = "title"
	KeyPriority      = "priority"
	KeyCreated       = "created"
	KeyAssignedTo    = "assigned_to"
	KeyQAAttempts    = "qa_attempts"
	KeyStartedAt     = "started_at"
	KeySubmittedAt   = "submitted_at"
	KeySubmittedSHA  = "submitted_sha"
	KeyCompletedAt   = "completed_at"
	KeyWorktree      = "worktree"
	KeyBranch        = "branch"
	KeyBaseSHA       = "base_sha"
	KeyAffects       = "affects"
	KeyAffectsGlobs  = "affects_globs"
	KeyMustNotTouch  = "must_not_touch"
	KeyDependsOn     = "depends_on"
	KeyTags          = "tags"
	KeyVerify        = "verify"
	KeyBlockedReason = "blocked_reason"
	KeyLeaseExpires  = "lease_expires"
	// KeyLeaseHolder is the watcher process that holds the lease
	// (name@host#pid): two watchers on one host are told apart.
	KeyLeaseHolder = "lease_holder"
	// KeyScopeRequest is a wider scope an agent asked for from inside a
	// watch run: the task waits for a human's git burl scope.
	KeyScopeRequest = "scope_request"
	// KeyPRNumber is a QA task's open pull request (landing: pr); with it
	// pr_url and pr_head (DESIGN §17).
	KeyPRNumber = "pr_number"
	KeyPRURL    = "pr_url"
	KeyPRHead   = "pr_head"
	// KeyPRBase is the branch a QA task's open pull request targets when
	// that is not main: its parent's, while the parent's request is open
	// (DESIGN §26).
	KeyPRBase = "pr_base"
	// KeyPROpenedAt is when approve opened (or updated) the pull request
	// at pr_head: ci_timeout counts from it (DESIGN §21).
	KeyPROpenedAt = "pr_opened_at"
	// KeyCIRounds counts the times the forge's failed checks sent the task
	// back; at ci_max_rounds it is BLOCKED.
	KeyCIRounds = "ci_rounds"
	// KeyReviewVerdict is the last review's verdict (approve,
	// request_changes, failed, or overridden by a human's approve) for the
	// head in review_head, by the reviewer in reviewer (DESIGN §21);
	// review_rounds counts the changes it requested.
	KeyReviewVerdict = "review_verdict"
	KeyReviewHead    = "review_head"
	KeyReviewer      = "reviewer"
	KeyReviewRounds  = "review_rounds"
	// ReviewApprove is the verdict that lets a task land (review.Approve).
	ReviewApprove = "approve"
	// KeyPort is the TCP port a DOING task holds (BURL_PORT), freed when
	// it goes back to READY or reaches DONE.
	KeyPort = "port"
	// KeyBlockedSummary is blocked_reason in one line of at most 120
	// characters, for boards and lists (DESIGN §20); SetBlocked writes both.
	KeyBlockedSummary = "blocked_summary"
	// KeyHeldReason is why a human holds the task back from agents (git
	// burl hold): claim without an ID and watch never take it.
	KeyHeldReason = "held_reason"
	// KeyResolution is how a DONE task ended: null when its work landed,
	// ResolutionCancelled when git burl cancel ended it without landing;
	// KeyCancelledReason says why.
	KeyResolution      = "resolution"
	KeyCancelledReason = "cancelled_reason"
	// KeyStackedOn is the parent a stacked task was claimed on (config
	// stack: true), KeyStackBase the parent's head its own work starts
	// from: its gates judge stack_base..head, and a restack replays that
	// range onto main (DESIGN §26).
	KeyStackedOn = "stacked_on"
	KeyStackBase = "stack_base"
	// KeyDiscoveredFrom is the task whose run proposed this one (DESIGN
	// §27), kept once accepted; KeyProposedBy who proposed it, set only
	// while the task is PROPOSED (git burl accept clears it).
	KeyDiscoveredFrom = "discovered_from"
	KeyProposedBy     = "proposed_by"
)

// ResolutionCancelled is the resolution of a task ended without landing.
const ResolutionCancelled = "cancelled"

// Priorities in claim order.
var Priorities = []string{"critical", "high", "medium", "low"}

// PriorityRank orders priorities for claiming; unknown sorts last.
func PriorityRank(p string) int {
	for i, q := range Priorities {
		if q == p {
			return i
		}
	}
	return len(Priorities)
}

// Task is one parsed task file.
type Task struct {
	head  []byte   // the opening "---" line with its line ending
	lines [][]byte // frontmatter lines, each with its line ending
	tail  []byte   // the closing "---" line and the body, untouched
	nl    string   // the file's line ending, for lines we write
	root  *yaml.Node
	keys  map[string]int // key -> index of its key node in root.Content
}

// ParseError is a malformed task file; Line is 1-based in the file (0 if unknown).
type ParseError struct {
	Line int
	Msg  string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

func perr(line int, format string, args ...any) error {
	return &ParseError{Line: line, Msg: fmt.Sprintf(format, args...)}
}

// Parse reads a task file's bytes.
func Parse(data []byte) (*Task, error) {
	first := lineEnd(data, 0)
	if marker(data[:first]) != "---" {
		return nil, perr(1, "missing YAML frontmatter: the file must start with a line containing only ---")
	}
	t := &Task{head: data[:first], nl: "\n"}
	if bytes.HasSuffix(t.head, []byte("\r\n")) {
		t.nl = "\r\n"
	}
	for off := first; ; {
		if off >= len(data) {
			return nil, perr(1, "frontmatter is not closed: add a line containing only --- after it")
		}
		end := lineEnd(data, off)
		line := data[off:end]
		s := marker(line)
		if s == "---" || s == "..." {
			t.tail = data[off:]
			break
		}
		// YAML would start a new document at "--- x" or "... x" and
		// ignore everything after it, so keys written there would be lost.
		if strings.HasPrefix(s, "--- ") || strings.HasPrefix(s, "---\t") || strings.HasPrefix(s, "... ") || strings.HasPrefix(s, "...\t") {
			return nil, perr(len(t.lines)+2, "%q starts a new YAML document inside the frontmatter; end the frontmatter with a line containing only ---", s)
		}
		// YAML also breaks lines at a lone CR and at NEL, LS and PS; we
		// split at LF only, so such a file would put keys on lines other
		// than the ones we rewrite.
		if bytes.ContainsAny(bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")), "\r\u0085\u2028\u2029") {
			return nil, perr(len(t.lines)+2, "stray line break character (a lone CR, NEL, LS or PS) in the frontmatter; use LF or CRLF line endings")
		}
		t.lines = append(t.lines, line)
		off = end
	}
	if err := t.reparse(); err != nil {
		return nil, err
	}
	return t, nil
}

// marker is a line without its ending and trailing blanks: editors leave
// "--- " behind, and YAML itself reads it as a document marker.
func marker(line []byte) string { return strings.TrimRight(string(line), " \t\r\n") }

func lineEnd(data []byte, off int) int {
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(data)
}

var yamlLineRe = regexp.MustCompile(`line (\d+)`)

// reparse rebuilds the node view from the lines; lines are the truth.
func (t *Task) reparse() error {
	root := fastRoot(t.lines)
	if root == nil {
		var err error
		if root, err = slowRoot(t.lines); err != nil {
			return err
		}
	}
	// set() rewrites a key by replacing its lines, so it needs one key per
	// line at column 1 and no value that depends on another key's lines.
	// Shapes that break that are refused here, when the file is read, so a
	// later rewrite can never drop a neighbouring key or produce YAML that
	// no longer parses.
	if root.Style&yaml.FlowStyle != 0 {
		return perr(root.Line+1, "frontmatter must be one `key: value` per line, not a {...} mapping")
	}
	if n := findAnchor(root); n != nil {
		return perr(n.Line+1, "YAML anchors and aliases (&name, *name) are not supported in task frontmatter; write the value out")
	}
	t.root = root
	t.keys = make(map[string]int, len(root.Content)/2)
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if k.Kind != yaml.ScalarNode {
			return perr(k.Line+1, "frontmatter keys must be plain strings")
		}
		if k.Column != 1 {
			return perr(k.Line+1, "key %q must start at the beginning of its line (no indentation)", k.Value)
		}
		if _, dup := t.keys[k.Value]; dup {
			return perr(k.Line+1, "key %q appears twice", k.Value)
		}
		t.keys[k.Value] = i
	}
	return nil
}

// slowRoot is the frontmatter's root node as yaml.v3 reads it: for
// anything fastRoot leaves alone, and for every error message.
func slowRoot(lines [][]byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(bytes.Join(lines, nil), &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 0
		if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			line = n + 1
			msg = strings.TrimSpace(yamlLineRe.ReplaceAllString(msg, ""))
			msg = strings.TrimPrefix(msg, ": ")
		}
		return nil, perr(line, "invalid YAML in frontmatter: %s", msg)
	}
	if len(doc.Content) == 0 {
		return nil, perr(2, "frontmatter is empty")
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, perr(root.Line+1, "frontmatter must be a mapping of keys to values")
	}
	return root, nil
}

// findAnchor returns the first node that defines an anchor or is an alias.
func findAnchor(n *yaml.Node) *yaml.Node {
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return n
	}
	for _, c := range n.Content {
		if a := findAnchor(c); a != nil {
			return a
		}
	}
	return nil
}

// Bytes renders the file.
func (t *Task) Bytes() []byte {
	var b bytes.Buffer
	b.Write(t.head)
	for _, l := range t.lines {
		b.Write(l)
	}
	b.Write(t.tail)
	return b.Bytes()
}

func (t *Task) value(key string) *yaml.Node {
	i, ok := t.keys[key]
	if !ok {
		return nil
	}
	return t.root.Content[i+1]
}

// Has reports whether key is present.
func (t *Task) Has(key string) bool { _, ok := t.keys[key]; return ok }

// Str is a scalar value; "" for null or missing.
func (t *Task) Str(key string) string {
	v := t.value(key)
	if v == nil || v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return ""
	}
	return v.Value
}

// Int is an integer value; 0 for null or missing.
func (t *Task) Int(key string) int {
	n, _ := strconv.Atoi(t.Str(key))
	return n
}

// List is a sequence of scalars; nil for null or missing.
func (t *Task) List(key string) []string {
	v := t.value(key)
	if v == nil || v.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]string, 0, len(v.Content))
	for _, c := range v.Content {
		out = append(out, c.Value)
	}
	return out
}

// Convenience accessors for the fields every verb reads.
func (t *Task) ID() string       { return t.Str(KeyID) }
func (t *Task) Title() string    { return t.Str(KeyTitle) }
func (t *Task) Branch() string   { return t.Str(KeyBranch) }
func (t *Task) Worktree() string { return t.Str(KeyWorktree) }
func (t *Task) BaseSHA() string  { return t.Str(KeyBaseSHA) }

// Priority defaults to medium when unset.
func (t *Task) Priority() string {
	if p := t.Str(KeyPriority); p != "" {
		return p
	}
	return "medium"
}

// SetStr sets a string value; "" writes null.
func (t *Task) SetStr(key, v string) {
	if v == "" {
		t.set(key, nullNode())
		return
	}
	t.set(key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
}

// SetInt sets an integer value.
func (t *Task) SetInt(key string, n int) {
	t.set(key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(n)})
}

// SetTime sets a timestamp in RFC 3339, UTC, second precision.
func (t *Task) SetTime(key string, ts time.Time) {
	t.set(key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp", Value: ts.UTC().Format(time.RFC3339)})
}

// SetNull clears a value (the key stays, as null).
func (t *Task) SetNull(key string) {
	if t.Has(key) {
		t.set(key, nullNode())
	}
}

// SetList sets a list of strings.
func (t *Task) SetList(key string, items []string) {
	t.set(key, listNode(items))
}

func nullNode() *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"} }

func listNode(items []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	for _, it := range items {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: it})
	}
	if len(items) == 0 {
		n.Style = yaml.FlowStyle
	}
	return n
}

// set replaces the lines of one top-level key (or appends the key), leaving
// every other line as it was.
func (t *Task) set(key string, v *yaml.Node) {
	start, end := len(t.lines), len(t.lines)
	if i, ok := t.keys[key]; ok {
		old := t.root.Content[i+1]
		start = t.root.Content[i].Line - 1
		end = t.blockEnd(i)
		if old.Kind == yaml.SequenceNode && old.Style&yaml.FlowStyle != 0 && len(old.Content) > 0 && v.Kind == yaml.SequenceNode {
			v.Style = yaml.FlowStyle
		}
		if v.Kind == yaml.ScalarNode && old.LineComment != "" {
			v.LineComment = old.LineComment
		}
	}
	rendered := t.render(key, v)
	lines := make([][]byte, 0, len(t.lines)+len(rendered))
	lines = append(lines, t.lines[:start]...)
	lines = append(lines, rendered...)
	lines = append(lines, t.lines[end:]...)
	t.lines = lines
	if err := t.reparse(); err != nil {
		// We only ever write values yaml.v3 itself encoded; failing to read
		// them back is a bug, not a user error.
		panic(fmt.Sprintf("task: rewriting %q produced invalid YAML: %v", key, err))
	}
}

// blockEnd is the line index just past key i's value: up to the next
// top-level key, minus the blank and column-0 comment lines that introduce it.
func (t *Task) blockEnd(i int) int {
	end := len(t.lines)
	if i+2 < len(t.root.Content) {
		end = t.root.Content[i+2].Line - 1
	}
	start := t.root.Content[i].Line
	for end > start {
		s := strings.TrimRight(string(t.lines[end-1]), "\r\n")
		if strings.TrimSpace(s) == "" || strings.HasPrefix(s, "#") {
			end--
			continue
		}
		break
	}
	return end
}

func (t *Task) render(key string, v *yaml.Node) [][]byte {
	m := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v,
	}}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(m); err != nil {
		panic(fmt.Sprintf("task: encoding %q: %v", key, err))
	}
	_ = enc.Close()
	text := strings.TrimSuffix(b.String(), "\n")
	var out [][]byte
	for _, l := range strings.Split(text, "\n") {
		out = append(out, []byte(l+t.nl))
	}
	return out
}

// Body is the markdown after the frontmatter.
func (t *Task) Body() string {
	return string(t.tail[lineEnd(t.tail, 0):])
}

// AppendToSection adds text at the end of the "## <heading>" section of the
// body, creating the section at the end when it is missing.
func (t *Task) AppendToSection(heading, text string) {
	closing := t.tail[:lineEnd(t.tail, 0)]
	body := t.Body()
	lines := strings.SplitAfter(body, "\n")
	at, end := sectionBounds(lines, heading)
	block := strings.ReplaceAll(strings.TrimRight(text, "\n")+"\n", "\n", t.nl)
	if at < 0 {
		if body != "" && !strings.HasSuffix(body, "\n") {
			body += t.nl
		}
		body += t.nl + "## " + heading + t.nl + t.nl + block
	} else {
		// Insert after the section's last non-blank line, so the blank line
		// that separates it from the next heading stays in place.
		ins := end
		for ins > at+1 && strings.TrimSpace(lines[ins-1]) == "" {
			ins--
		}
		prefix := strings.Join(lines[:ins], "")
		if !strings.HasSuffix(prefix, "\n") {
			prefix += t.nl
		}
		rest := strings.Join(lines[ins:], "")
		if end < len(lines) && strings.TrimSpace(strings.SplitAfterN(rest, "\n", 2)[0]) != "" {
			rest = t.nl + rest
		}
		body = prefix + t.nl + block + rest
	}
	t.tail = append(append([]byte{}, closing...), body...)
}

// sectionBounds is where "## <heading>" is among lines (-1 when it is
// missing) and where its section ends (the next "## " line, or the end).
func sectionBounds(lines []string, heading string) (at, end int) {
	at, end = -1, len(lines)
	for i, l := range lines {
		if at < 0 && strings.TrimRight(l, "\r\n") == "## "+heading {
			at = i
		} else if at >= 0 && strings.HasPrefix(l, "## ") {
			return at, i
		}
	}
	return at, end
}

// Section returns the text of "## <heading>" (without the heading line).
func (t *Task) Section(heading string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.SplitAfter(t.Body(), "\n") {
		s := strings.TrimRight(l, "\r\n")
		if strings.HasPrefix(s, "## ") {
			in = s == "## "+heading
			continue
		}
		if in {
			b.WriteString(l)
		}
	}
	return b.String()
}

// Fields returns the frontmatter as plain values, for --json.
func (t *Task) Fields() map[string]any {
	out := map[string]any{}
	for i := 0; i+1 < len(t.root.Content); i += 2 {
		var v any
		n := t.root.Content[i+1]
		if n.Kind == yaml.ScalarNode && n.Tag == "!!timestamp" {
			v = n.Value
		} else if err := n.Decode(&v); err != nil {
			v = n.Value
		}
		out[t.root.Content[i].Value] = v
	}
	return out
}

// ReviewApproved reports whether t's recorded review approves the head it
// submitted (DESIGN §21): the landing gate, watch's choice of what to
// review and the status cache ask this one question.
func (t *Task) ReviewApproved() bool {
	head := t.Str(KeySubmittedSHA)
	return head != "" && t.Str(KeyReviewVerdict) == ReviewApprove && t.Str(KeyReviewHead) == head
}
