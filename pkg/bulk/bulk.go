// Package bulk reads the tasks of git burl add --from FILE (DESIGN §27): a
// YAML or JSON list of task objects, or markdown with one "## title"
// section per task. It only reads; add checks each entry as it checks its
// flags, all of them before it writes anything.
package bulk

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Entry is one task as a file gives it: add's flags by their frontmatter
// names (affects_globs, must_not_touch, depends_on), plus description and
// ac (the body's Objective and acceptance criteria) or a whole body.
type Entry struct {
	// ID is a name the file's other entries may depend on (depends_on:
	// [parse]); it is not the task's ID, which add allocates.
	ID           string   `yaml:"id"`
	Title        string   `yaml:"title"`
	Priority     string   `yaml:"priority"`
	Affects      []string `yaml:"affects"`
	AffectsGlobs []string `yaml:"affects_globs"`
	MustNotTouch []string `yaml:"must_not_touch"`
	DependsOn    []string `yaml:"depends_on"`
	Tags         []string `yaml:"tags"`
	Verify       string   `yaml:"verify"`
	Description  string   `yaml:"description"`
	AC           []string `yaml:"ac"`
	Body         string   `yaml:"body"`
	// Line is where the entry starts in the file, for messages.
	Line int `yaml:"-"`
}

// Parse reads a file's entries. Markdown is told by its name (.md,
// .markdown) or, for standard input, by a first "#" line; anything else
// is YAML, of which JSON is a part.
func Parse(name string, data []byte) ([]Entry, error) {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	lower := strings.ToLower(name)
	trimmed := bytes.TrimSpace(data)
	if strings.HasSuffix(lower, ".md") || strings.HasSuffix(lower, ".markdown") || (name == "-" && bytes.HasPrefix(trimmed, []byte("#"))) {
		return markdown(string(data))
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("not YAML or JSON: %v", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("expected a list of tasks (- title: ...), or markdown with one '## title' section per task")
	}
	var out []Entry
	for i, n := range doc.Content[0].Content {
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("line %d: task %d is not an object with a title", n.Line, i+1)
		}
		for j := 0; j < len(n.Content); j += 2 {
			if k := n.Content[j].Value; !known[k] {
				return nil, fmt.Errorf("line %d: task %d: unknown key %q (known: %s)", n.Content[j].Line, i+1, k, keys)
			}
		}
		var e Entry
		if err := n.Decode(&e); err != nil {
			return nil, fmt.Errorf("line %d: task %d: %v", n.Line, i+1, err)
		}
		e.Line = n.Line
		out = append(out, e)
	}
	return out, nil
}

const keys = "id, title, priority, affects, affects_globs, must_not_touch, depends_on, tags, verify, description, ac, body"

var known = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Split(keys, ", ") {
		m[k] = true
	}
	return m
}()

// markdown reads one task per "## title" section. A section starts with
// optional "Key: value" lines (priority, affects, affects_globs,
// must_not_touch, depends_on, tags, verify, id; lists comma-separated); its
// "- [ ] " lines are acceptance criteria and the rest its description.
// Text before the first section (a "# heading", notes) is not a task.
func markdown(s string) ([]Entry, error) {
	var out []Entry
	var cur *Entry
	var desc []string
	meta := false
	fence := false
	flush := func() {
		if cur != nil {
			cur.Description = strings.TrimSpace(strings.Join(desc, "\n"))
			out = append(out, *cur)
		}
	}
	for i, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(line, "## ") {
			flush()
			cur, desc, meta = &Entry{Title: strings.TrimSpace(line[3:]), Line: i + 1}, nil, true
			continue
		}
		if cur == nil {
			continue
		}
		if meta {
			if strings.TrimSpace(line) == "" && len(desc) == 0 {
				continue
			}
			if k, v, ok := strings.Cut(line, ":"); ok && !fence {
				if set, isKey := fields[strings.ToLower(strings.ReplaceAll(strings.TrimSpace(k), "-", "_"))]; isKey {
					set(cur, strings.TrimSpace(v))
					continue
				}
			}
			meta = false
		}
		if c, ok := strings.CutPrefix(strings.TrimSpace(line), "- [ ] "); ok && !fence {
			cur.AC = append(cur.AC, strings.TrimSpace(c))
			continue
		}
		desc = append(desc, line)
	}
	flush()
	if len(out) == 0 {
		return nil, fmt.Errorf("no '## title' section: each task is a section headed '## ' and its title")
	}
	return out, nil
}

func list(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

var fields = map[string]func(*Entry, string){
	"id":             func(e *Entry, v string) { e.ID = v },
	"priority":       func(e *Entry, v string) { e.Priority = v },
	"affects":        func(e *Entry, v string) { e.Affects = append(e.Affects, list(v)...) },
	"affects_globs":  func(e *Entry, v string) { e.AffectsGlobs = append(e.AffectsGlobs, list(v)...) },
	"affects_glob":   func(e *Entry, v string) { e.AffectsGlobs = append(e.AffectsGlobs, list(v)...) },
	"must_not_touch": func(e *Entry, v string) { e.MustNotTouch = append(e.MustNotTouch, list(v)...) },
	"depends_on":     func(e *Entry, v string) { e.DependsOn = append(e.DependsOn, list(v)...) },
	"tags":           func(e *Entry, v string) { e.Tags = append(e.Tags, list(v)...) },
	"verify":         func(e *Entry, v string) { e.Verify = v },
}
