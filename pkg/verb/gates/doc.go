// Package gates holds the verbs that run or check the gates without moving
// a task: validate runs a QA task's, verify checks that main's history
// came through them.
package gates
