// Package authoring holds the verbs that write a task's file without moving
// it between buckets: add (one task, or many with --from) and edit.
package authoring
