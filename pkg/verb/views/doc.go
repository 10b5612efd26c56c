// Package views holds the verbs that read the workflow and change nothing:
// status, show, log, stats, inbox, diff and conflicts. A verb of its own
// package, each binary links only its family, not every verb's imports.
package views
