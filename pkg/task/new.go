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
