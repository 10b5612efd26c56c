// Package runguard is what a run must leave as it found it (DESIGN §16,
// §19, §24): the Guard recorded before a run and checked after it, the
// refs of a git dir read as files, and the pinned git configuration burl's
// own git runs with while a watch lives. The sandbox and the watch's
// unconfined runs both check a run with it.
package runguard
