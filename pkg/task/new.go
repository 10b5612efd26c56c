package task

import (
	"strings"
	"time"
)

// Spec is what `add` knows about a new task.
type Spec struct {
	ID, Title, Priority string
	Created             time.Time
	Affects             []string
	AffectsGlobs        []string
	MustNotTouch        []string
	DependsOn           []string
	Tags                []string
	Verify              string
	Body                string // markdown; the PRD template when empty
}

const template = `---
id: TASK-000
title: x
priority: medium
created: 2000-01-01T00:00:00Z

# Ownership/attempts
assigned_to: null
qa_attempts: 0

# Lifecycle timestamps
started_at: null
submitted_at: null
completed_at: null

# Git/worktree state (populated on claim)
worktree: null
branch: null
base_sha: null

# Scope control
affects: []
affects_globs: []
must_not_touch: []

# Dependency control
depends_on: []

# Freeform
tags: []
---
`

// DefaultBody is the PRD's task body template.
const DefaultBody = `
## Objective
Single sentence describing what "done" looks like.

## Acceptance Criteria
- [ ] Criterion 1 (specific, verifiable)

## Context
Relevant notes/links, constraints, file references.

## Implementation Notes
<!-- Worker fills -->

## QA Report
<!-- Validator fills (tool can append) -->
`

// placeholders are the lines of DefaultBody that say what to write, not
// what the task is: an agent's prompt leaves them out.
var placeholders = map[string]bool{
	`Single sentence describing what "done" looks like.`:  true,
	"- [ ] Criterion 1 (specific, verifiable)":            true,
	"Relevant notes/links, constraints, file references.": true,
	"<!-- Worker fills -->":                               true,
	"<!-- Validator fills (tool can append) -->":          true,
}

// StripPlaceholders is text without DefaultBody's placeholder lines, and
// whether it had any.
func StripPlaceholders(text string) (string, bool) {
	var b strings.Builder
	found := false
	for _, l := range strings.SplitAfter(text, "\n") {
		if placeholders[strings.TrimSpace(l)] {
			found = true
			continue
		}
		b.WriteString(l)
	}
	return b.String(), found
}

// WithoutEmptySections is markdown without its "## " headings that hold
// nothing but blank lines up to the next one (or the end): the template's
// sections nobody filled, which a reader is only made to scroll past.
func WithoutEmptySections(md string) string {
	lines := strings.SplitAfter(md, "\n")
	var b strings.Builder
	for i := 0; i < len(lines); {
		l := lines[i]
		i++
		if !strings.HasPrefix(l, "## ") {
			b.WriteString(l)
			continue
		}
		j := i
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j < len(lines) && !strings.HasPrefix(lines[j], "## ") {
			b.WriteString(l)
			continue
		}
		i = j
	}
	return b.String()
}

// criteriaHeading is the section of a body that holds the acceptance
// criteria (DefaultBody's, BodyFrom's).
const criteriaHeading = "## Acceptance Criteria"

// Readable is a task body as show prints it: the template's placeholder
// lines left out (they say what to write, and read as the task's own
// criteria otherwise), every heading kept, and an empty acceptance
// criteria section saying that there are none.
func Readable(body string) string {
	stripped, _ := StripPlaceholders(body)
	lines := strings.SplitAfter(stripped, "\n")
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l)
		if strings.TrimRight(l, "\r\n") != criteriaHeading {
			continue
		}
		empty := true
		for _, n := range lines[i+1:] {
			if strings.HasPrefix(n, "## ") {
				break
			}
			if strings.TrimSpace(n) != "" {
				empty = false
				break
			}
		}
		if empty {
			if !strings.HasSuffix(l, "\n") {
				b.WriteString("\n")
			}
			b.WriteString("(none given)\n")
		}
	}
	return b.String()
}

// BodyFrom is a task body made of a description and acceptance criteria
// (add --description, --ac), in DefaultBody's sections.
func BodyFrom(description string, criteria []string) string {
	var b strings.Builder
	b.WriteString("\n## Objective\n")
	if d := strings.TrimSpace(description); d != "" {
		b.WriteString(d + "\n")
	}
	b.WriteString("\n" + criteriaHeading + "\n")
	for _, c := range criteria {
		if c = strings.TrimSpace(c); c != "" {
			b.WriteString("- [ ] " + c + "\n")
		}
	}
	b.WriteString("\n## Context\n\n## Implementation Notes\n<!-- Worker fills -->\n\n## QA Report\n<!-- Validator fills (tool can append) -->\n")
	return b.String()
}

// New renders a new task file from spec, in the PRD's key order.
func New(s Spec) *Task {
	t, err := Parse([]byte(template))
	if err != nil {
		panic("task: built-in template does not parse: " + err.Error())
	}
	t.SetStr(KeyID, s.ID)
	t.SetStr(KeyTitle, s.Title)
	if s.Priority != "" {
		t.SetStr(KeyPriority, s.Priority)
	}
	t.SetTime(KeyCreated, s.Created)
	t.SetList(KeyAffects, s.Affects)
	t.SetList(KeyAffectsGlobs, s.AffectsGlobs)
	t.SetList(KeyMustNotTouch, s.MustNotTouch)
	t.SetList(KeyDependsOn, s.DependsOn)
	t.SetList(KeyTags, s.Tags)
	if s.Verify != "" {
		t.SetStr(KeyVerify, s.Verify)
	}
	body := s.Body
	if strings.TrimSpace(body) == "" {
		body = DefaultBody
	} else {
		if !strings.HasPrefix(body, "\n") {
			body = "\n" + body
		}
		if !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		if !strings.Contains(body, "\n## QA Report") {
			body += "\n## QA Report\n<!-- Validator fills (tool can append) -->\n"
		}
	}
	t.tail = append(t.tail[:lineEnd(t.tail, 0)], body...)
	return t
}
