// Package drain is how `git burl drain` reaches every watch of a
// repository (DESIGN §27): each watch registers itself under the shared
// git dir while it runs, and drain leaves a marker there that every watch
// reads each round. A draining watch claims nothing new, finishes what it
// runs and exits; the last one to exit takes the marker away, so the next
// watch started works again.
package drain

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/burl-dev/burl/pkg/fsx"
	"github.com/burl-dev/burl/pkg/osx"
)

// Where the registry and the marker live, under .git/burl: the shared git
// dir, so the watches of every worktree of one clone see them.
const (
	watchersDir = "watchers"
	markerFile  = "drain"
)

// Watcher is one registered watch.
type Watcher struct {
	PID int `json:"pid"`
	// Start and Boot tell this incarnation of PID from a later process
	// that got the same number.
	Start   string    `json:"start"`
	Boot    string    `json:"boot"`
	Dir     string    `json:"dir"`
	Started time.Time `json:"started"`
}

// Marker is a drain request.
type Marker struct {
	By string    `json:"by"`
	At time.Time `json:"at"`
}

func registry(burlDir string) string { return filepath.Join(burlDir, watchersDir) }

func marker(burlDir string) string { return filepath.Join(burlDir, markerFile) }

// alive reports whether the process w registered is still the one
// running: a watch killed by SIGKILL leaves its file behind.
func (w Watcher) alive() bool { return osx.GoneWhy(w.PID, w.Start, w.Boot) == "" }

// Register records this process as a watch of the repository whose
// burl folder is burlDir, working in dir. The returned function ends the
// registration; when no other watch remains registered it also takes
// away the drain request the watches were exiting for.
func Register(burlDir, dir string) (done func(), err error) {
	pid := os.Getpid()
	start, _, _ := osx.ProcessStart(pid)
	me := Watcher{PID: pid, Start: start, Boot: osx.BootID(), Dir: dir, Started: time.Now().UTC().Truncate(time.Second)}
	data, err := json.Marshal(me)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(registry(burlDir), strconv.Itoa(pid)+".json")
	if err := fsx.WriteFile(path, append(data, '\n')); err != nil {
		return nil, fmt.Errorf("cannot register this watch in %s: %w", registry(burlDir), err)
	}
	return func() {
		_ = os.Remove(path)
		// Removed first, listed second: of two watches exiting at once,
		// the later lister always sees neither.
		if ws, _ := Live(burlDir); len(ws) == 0 {
			_ = os.Remove(marker(burlDir))
		}
	}, nil
}

// Live lists the registered watches still running, oldest first; the files
// of those that are gone are removed.
func Live(burlDir string) ([]Watcher, error) {
	ents, err := os.ReadDir(registry(burlDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Watcher
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := filepath.Join(registry(burlDir), e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var w Watcher
		if json.Unmarshal(data, &w) != nil || !w.alive() {
			_ = os.Remove(p)
			continue
		}
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Started.Before(out[j].Started) || out[i].Started.Equal(out[j].Started) && out[i].PID < out[j].PID
	})
	return out, nil
}

// Request asks every live watch to drain. With none running it leaves no
// marker: a watch started later would otherwise exit at once.
func Request(burlDir, by string, now time.Time) ([]Watcher, error) {
	ws, err := Live(burlDir)
	if err != nil || len(ws) == 0 {
		return ws, err
	}
	data, err := json.Marshal(Marker{By: by, At: now.UTC().Truncate(time.Second)})
	if err != nil {
		return nil, err
	}
	if err := fsx.WriteFile(marker(burlDir), append(data, '\n')); err != nil {
		return nil, fmt.Errorf("cannot write the drain request %s: %w", marker(burlDir), err)
	}
	return ws, nil
}

// Requested is the pending drain request, if any. One no live watch is
// left to honour (all of them killed) is stale: it is taken away.
func Requested(burlDir string) (Marker, bool) {
	data, err := os.ReadFile(marker(burlDir))
	if err != nil {
		return Marker{}, false
	}
	if ws, _ := Live(burlDir); len(ws) == 0 {
		_ = os.Remove(marker(burlDir))
		return Marker{}, false
	}
	var m Marker
	_ = json.Unmarshal(data, &m)
	return m, true
}
