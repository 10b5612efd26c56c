// Package record is the landing record (DESIGN §22): what burl knew when
// a task's work landed on main — the task, the tree its gates passed, the
// gate results with a hash of their inputs, the agent, what its runs
// cost, who approved and when. It is stored as a git note on each landed
// commit (pkg/notes) and its sha256 in the landing's event on the
// workflow branch, so that anyone holding both can check every commit of
// main (git burl verify) without trusting the machine that landed it.
//
// One writer (Land, called by every kind of landing) and one reader
// (Verify). The schema is versioned; burl-record(5) documents it.
package record

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Version is the schema this burl writes, and the newest it reads.
const Version = 1

// Landing kinds.
const (
	KindApprove      = "approve"       // git burl approve ID
	KindQueue        = "queue"         // git burl approve --all (watch's auto_approve)
	KindPR           = "pr"            // a pull request the forge merged (landing: pr)
	KindAcceptLanded = "accept_landed" // git burl approve --accept-landed ID
)

// Record is one landing. Its JSON is the note.
type Record struct {
	Version int    `json:"burl_record"`
	Task    string `json:"task"`
	Title   string `json:"title"`
	Landing Via    `json:"landing"`
	// MainBranch is the branch the work landed on; Base its commit before.
	MainBranch string `json:"main_branch"`
	Base       string `json:"base"`
	// Commits are the landed commits on main's first-parent history,
	// oldest first; each carries this record. Tree is the last one's tree.
	Commits []string `json:"commits"`
	Tree    string   `json:"tree"`
	// GatedTree is the tree the gates passed, when it is not Tree: the
	// forge merged a pull request onto a main that had moved on, or made
	// a merge commit (the change was recognised as the gated one).
	GatedTree string `json:"gated_tree,omitempty"`
	Submitted string `json:"submitted_sha,omitempty"`
	Gates     Gates  `json:"gates"`
	// Worker is who submitted the work (assigned_to); Agent the agent of
	// the last run when watch ran one.
	Worker     string   `json:"worker,omitempty"`
	Agent      *Agent   `json:"agent,omitempty"`
	Attempts   Attempts `json:"attempts"`
	Cost       *Cost    `json:"cost,omitempty"`
	ApprovedBy string   `json:"approved_by"`
	LandedAt   string   `json:"landed_at"`
}

// Via is how the work got onto main.
type Via struct {
	Kind string `json:"kind"`
	// Recovered: an approve interrupted after it moved main was finished
	// (its gates had passed before it moved main).
	Recovered bool `json:"recovered,omitempty"`
	// MergeStyle is what the forge was asked to do (pr_merge_style), or
	// "squash" for approve's own squash (merge_strategy squash); How how
	// burl recognised the merge: ancestry, cherry, squash or forge.
	MergeStyle string `json:"merge_style,omitempty"`
	How        string `json:"how,omitempty"`
	PR         *PR    `json:"pr,omitempty"`
}

// PR is the pull request a landing went through.
type PR struct {
	Number int    `json:"number"`
	URL    string `json:"url"`
}

// Gates are the results of every gate. Checks (the forge's, DESIGN §21)
// is there where they gate the landing; Review once that gate exists.
type Gates struct {
	Scope  Gate  `json:"scope"`
	Stubs  Gate  `json:"stubs"`
	Build  Gate  `json:"build"`
	Verify Gate  `json:"verify"`
	Review *Gate `json:"review,omitempty"`
	Checks *Gate `json:"checks,omitempty"`
}

// Gate results.
const (
	Pass = "pass"
	None = "none" // nothing to run: no build_command, no verify
	// NotSeen: the forge merged a pull request before burl saw its checks
	// pass (the forge's own merge-when-checks-pass, or a human).
	NotSeen = "not_seen"
)

// Gate is one gate's result. InputsSHA256 is the sha256 of the JSON object
// of its inputs (keys sorted, no white space, as `jq -cS` prints it):
// scope {affects, affects_globs, must_not_touch} and verify {verify} from
// the task, stubs {stub_check_extensions, stub_patterns}, build
// {build_command, build_timeout} and checks {checks, ci_timeout} from
// config.yaml.
type Gate struct {
	Result       string  `json:"result"`
	InputsSHA256 string  `json:"inputs_sha256,omitempty"`
	Command      string  `json:"command,omitempty"`
	Exit         *int    `json:"exit,omitempty"`
	Seconds      float64 `json:"seconds,omitempty"`
	// On is the commit the command ran on when it is not the record's
	// last commit (approve --all builds the top of a batch).
	On string `json:"on,omitempty"`
	// Summary: a reviewer's verdict summary, the checks that passed.
	Summary string `json:"summary,omitempty"`
}

// Agent is the agent whose run submitted the work.
type Agent struct {
	Name   string `json:"name"`
	Preset string `json:"preset,omitempty"`
	Model  string `json:"model,omitempty"`
}

// Attempts: the agent runs the task took and the QA rejections before it
// landed.
type Attempts struct {
	Runs int `json:"runs"`
	QA   int `json:"qa"`
}

// Cost is what every run on the task reported, summed.
type Cost struct {
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// Encode is the note: compact JSON and a newline, HTML characters as
// they are.
func (r *Record) Encode() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Parse reads a note. An error says why it is not a landing record this
// burl can read.
func Parse(note []byte) (*Record, error) {
	var r Record
	if err := r.decode(note); err != nil {
		if !json.Valid(note) {
			return nil, fmt.Errorf("the note is not JSON (%v)", err)
		}
		return nil, fmt.Errorf("the note is not a landing record (%v)", err)
	}
	switch {
	case r.Version == 0:
		return nil, fmt.Errorf("the note has no \"burl_record\" version: not a landing record")
	case r.Version > Version || r.Version < 0:
		return nil, fmt.Errorf("the note is landing record version %d; this burl reads version %d (upgrade burl)", r.Version, Version)
	case r.Task == "" || len(r.Commits) == 0 || r.Tree == "":
		return nil, fmt.Errorf("the note lacks the task, its commits or its tree")
	}
	return &r, nil
}

// InputsHash is the sha256 of inputs as Gate.InputsSHA256 documents it.
func InputsHash(inputs map[string]any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(inputs)
	sum := sha256.Sum256(bytes.TrimRight(b.Bytes(), "\n"))
	return hex.EncodeToString(sum[:])
}

// stamp is a record's time: RFC 3339 in UTC, whole seconds, as the
// landing's event has it.
func stamp(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }
