// Package bwrapbox describes a box as bubblewrap makes it (DESIGN §24):
// its mounts and why each is there, what every box keeps writable (the
// agents' presets, the language caches, sandbox_write), what it hides
// (sandbox_hide: the user's credentials), the shared config without its
// credentials, and bubblewrap's own path. The sandbox runs agents and
// reviewers in such a box; gates get theirs from GateArgv.
package bwrapbox
