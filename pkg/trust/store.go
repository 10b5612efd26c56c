package trust

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/natefinch/atomic"

	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/lock"
)

// Store is the trust file of this machine's user. It lives outside every
// repository (under $XDG_STATE_HOME), so nothing a repository, its config
// or its workflow branch holds can add to it.
type Store struct {
	Path string
}

// DefaultStore is $XDG_STATE_HOME/burl/trust, or ~/.local/state/burl/trust
// when XDG_STATE_HOME is unset or not absolute (as the XDG spec says to
// treat a relative one).
func DefaultStore() (Store, error) {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return Store{Path: filepath.Join(d, "burl", "trust")}, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return Store{}, errs.New(errs.User, "no trust store: neither XDG_STATE_HOME nor HOME is set (%v)", err).
			WithFix("set HOME (or XDG_STATE_HOME to an absolute directory)")
	}
	return Store{Path: filepath.Join(home, ".local", "state", "burl", "trust")}, nil
}

// Record is one line of the store: a trusted text and what its hash
// covers. Only SHA256 decides trust (it is recomputed from what is about
// to run); the rest is for people and for the diff of a changed text.
type Record struct {
	SHA256 string    `json:"sha256"`
	Repo   string    `json:"repo"`
	Where  string    `json:"where"`
	Text   string    `json:"text"`
	At     time.Time `json:"at"`
}

// Hash is sha256 of (repository, where, text), each part length-prefixed so
// that no two different triples share an input.
func Hash(repo, where, text string) string {
	h := sha256.New()
	for _, s := range []string{repo, where, text} {
		fmt.Fprintf(h, "%d:%s\n", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// NewRecord is the record trusting text at where in repo, now.
func NewRecord(repo, where, text string) Record {
	return Record{SHA256: Hash(repo, where, text), Repo: repo, Where: where, Text: text, At: time.Now().UTC().Truncate(time.Second)}
}

// Set is a loaded store.
type Set struct {
	hashes map[string]bool
	// last is the most recently trusted text per repository and place.
	last map[[2]string]Record
}

// Trusted reports whether text at where in repo was trusted.
func (s *Set) Trusted(repo, where, text string) bool { return s.hashes[Hash(repo, where, text)] }

// Previous is the text last trusted at where in repo, if any.
func (s *Set) Previous(repo, where string) (Record, bool) {
	r, ok := s.last[[2]string{repo, where}]
	return r, ok
}

// Load reads the store; a missing file is an empty store. Lines that do not
// parse are skipped: they can only fail to trust something.
func (st Store) Load() (*Set, error) {
	data, err := st.read()
	if err != nil {
		return nil, err
	}
	return parse(data), nil
}

func (st Store) read() ([]byte, error) {
	data, err := os.ReadFile(st.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, errs.New(errs.User, "cannot read the trust store %s: %v", st.Path, err).
			WithFix("check the file's permissions (it belongs to you and is yours alone: 0600)")
	}
	return data, nil
}

// Probe reports, in one read of the store and no parse, whether every
// hash is in it and no record is at any of places (the "where" of gate
// inputs judged by the text last trusted there): the question asked
// before every command burl runs. It scans for each record's "sha256"
// and "where" members (a JSON string value escapes its quotes, so no text
// can hold those sequences). A place in another repository's record
// answers false: the caller then loads the store.
func (st Store) Probe(hashes, places []string) (bool, error) {
	data, err := st.read()
	if err != nil {
		return false, err
	}
	for _, h := range hashes {
		if !bytes.Contains(data, []byte(`"sha256":"`+h+`"`)) {
			return false, nil
		}
	}
	if len(places) > 16 {
		// Many tasks' verify at once (git burl trust): a parse is cheaper
		// than a scan per task.
		return len(data) == 0, nil
	}
	for _, p := range places {
		w, _ := json.Marshal(p)
		if bytes.Contains(data, append([]byte(`"where":`), w...)) {
			return false, nil
		}
	}
	return true, nil
}

func parse(data []byte) *Set {
	s := &Set{hashes: map[string]bool{}, last: map[[2]string]Record{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var r Record
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.SHA256 == "" {
			continue
		}
		s.hashes[r.SHA256] = true
		if r.SHA256 == Hash(r.Repo, r.Where, r.Text) {
			k := [2]string{r.Repo, r.Where}
			if old, ok := s.last[k]; !ok || !r.At.Before(old.At) {
				s.last[k] = r
			}
		}
	}
	return s
}

// Add appends records not in the store yet. Writers on this machine take
// turns on a lock file beside the store, and each writes the whole file
// anew through a temporary file and a rename, so a reader sees the old or
// the new store and no concurrent trust is lost.
func (st Store) Add(recs ...Record) error {
	if len(recs) == 0 {
		return nil
	}
	dir := filepath.Dir(st.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return errs.New(errs.User, "cannot create %s for the trust store: %v", dir, err)
	}
	l, err := takeLock(dir)
	if err != nil {
		return err
	}
	defer l.Release()
	data, err := os.ReadFile(st.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errs.New(errs.User, "cannot read the trust store %s: %v", st.Path, err)
	}
	have := parse(data)
	out := bytes.NewBuffer(data)
	if out.Len() > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		out.WriteByte('\n')
	}
	added := 0
	for _, r := range recs {
		if have.hashes[r.SHA256] {
			continue
		}
		have.hashes[r.SHA256] = true
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		out.Write(append(line, '\n'))
		added++
	}
	if added == 0 {
		return nil
	}
	// atomic.WriteFile keeps an existing file's mode and creates a new one
	// 0600: what was trusted is nobody else's business.
	if err := atomic.WriteFile(st.Path, out); err != nil {
		return errs.New(errs.User, "cannot write the trust store %s: %v", st.Path, err)
	}
	return nil
}

// takeLock takes the store's lock; one left by a process that died is
// cleared, as only trust writes hold it, for milliseconds.
func takeLock(dir string) (*lock.Lock, error) {
	d := lock.Dir{Path: dir}
	host, _ := os.Hostname()
	me := lock.Info{Owner: "git burl trust", Host: host, PID: os.Getpid(), CreatedAt: time.Now().UTC(), Action: "trust"}
	l, err := d.AcquireWait("trust", me, 10*time.Second)
	if err != nil && errs.KindOf(err) == errs.Lock {
		// A holder that died, or one that died writing the lock (empty
		// file) long ago, never releases.
		if st, serr := d.Stat("trust"); serr == nil && (st.Dead || st.Unreadable && st.Age > 10*time.Second) {
			_ = d.Clear("trust")
			l, err = d.AcquireWait("trust", me, 10*time.Second)
		}
	}
	return l, err
}
