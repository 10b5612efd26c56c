// Package gate holds burl's deterministic validation gates (PRD section 12):
// the scope check over the paths a diff touches, the stub scanner over the
// lines a diff adds, and the runner for the build and verify commands. The
// gates take git's output as input rather than running git themselves, so
// the same code serves submit, validate, approve and the hooks, each of which
// picks its own diff range.
package gate

// Violation is one reason a gate failed; it is rendered to humans and to --json.
type Violation struct {
	Gate    string `json:"gate"` // "scope" | "stub" | "build" | "verify"
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"` // new-file line number (stubs)
	Text    string `json:"text,omitempty"` // the added line (stubs), without trailing \r
	Rule    string `json:"rule,omitempty"` // e.g. "must_not_touch: src/net/**", "not in affects/affects_globs", the stub pattern
	Message string `json:"message"`        // one human line, e.g. "src/enemy/ai.rs  (not in affects/affects_globs)"
	// Tail is the last lines (FixTailLines) of a failed build or verify
	// command's output, newline-separated, so the failure explains itself
	// without the log. A string keeps Violation comparable.
	Tail string `json:"tail,omitempty"`
}
