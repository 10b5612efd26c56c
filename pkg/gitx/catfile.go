package gitx

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/burl-dev/burl/pkg/faults"
)

// A burl process reads objects and resolves names through one git
// cat-file --batch-command per directory, started at its first read and
// ended with the process (DESIGN §28): each read is then a request on a
// pipe, not a git started and its repository set up again. git reads refs
// and objects afresh for every request (a loose ref is read from its file,
// a new pack is found on a miss), so an answer sees every write made
// before the request, by burl or anyone.
type catProc struct {
	mu   sync.Mutex
	proc *Proc
	in   io.WriteCloser
	r    *bufio.Reader
	// used orders the processes by their last request, for maxCat.
	used uint64
	// evicted: no longer in catProcs, its git ends after the request it
	// may still be given.
	evicted bool
}

var (
	catMu    sync.Mutex
	catProcs = map[string]*catProc{}
	catUsed  uint64
)

// maxCat bounds the cat-files a process keeps: watch reads in every task
// worktree it makes, and a worktree long removed needs none any more.
const maxCat = 8

// catKey tells apart what makes two runners read different repositories
// or resolve HEAD differently: the directory (a worktree's own HEAD), the
// environment and whether the inherited repository is dropped.
func (g Git) catKey() string {
	return program + "\x00" + g.Dir + "\x00" + strconv.FormatBool(g.OwnRepo) + "\x00" + strings.Join(g.Env, "\x00")
}

func (g Git) catProc() *catProc {
	catMu.Lock()
	defer catMu.Unlock()
	k := g.catKey()
	c := catProcs[k]
	if c == nil {
		if len(catProcs) >= maxCat {
			evictCat()
		}
		c = &catProc{}
		catProcs[k] = c
	}
	catUsed++
	c.used = catUsed
	return c
}

// evictCat ends the least recently asked cat-file (catMu held), once the
// request it may be answering is done.
func evictCat() {
	var old string
	for k, c := range catProcs {
		if old == "" || c.used < catProcs[old].used {
			old = k
		}
	}
	c := catProcs[old]
	delete(catProcs, old)
	c.evicted = true
	go func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.proc != nil {
			c.stop()
		}
	}()
}

// Cat asks git for every name at once (an object id, "REV:path",
// "X^{commit}") and hands each answer to each in order: the object's id,
// its type ("missing" when the name resolves to nothing) and its content
// (nil when contents is false: only id and type are asked for).
func (g Git) Cat(names []string, contents bool, each func(i int, oid, kind string, body []byte) error) error {
	if len(names) == 0 {
		return nil
	}
	verb := "info "
	if contents {
		verb = "contents "
	}
	if s, shared, ok := g.catRoute(names); ok {
		g, names = s, shared
	}
	var req strings.Builder
	for _, n := range names {
		if strings.ContainsAny(n, "\n\r") || n == "" {
			return fmt.Errorf("git cat-file cannot be asked for %q", n)
		}
		req.WriteString(verb + n + "\n")
	}
	req.WriteString("flush\n")
	c := g.catProc()
	c.mu.Lock()
	defer c.mu.Unlock()
	start := time.Now()
	err := c.ask(g, req.String(), names, contents, each)
	catMu.Lock()
	evicted := c.evicted
	catMu.Unlock()
	if evicted && c.proc != nil {
		c.stop()
	}
	// A request is a crash point like a git of its own: BURL_CRASH_AT_GIT
	// counts what BURL_TRACE prints.
	faults.GitDone([]string{"cat-file", "--batch-command", strings.TrimSpace(verb)})
	if trace {
		fmt.Fprintf(os.Stderr, "[%s] git cat-file --batch-command: %s %s (%s)\n", g.Dir, strings.TrimSpace(verb), strings.Join(names, " "), time.Since(start).Round(time.Microsecond))
	}
	return err
}

func (c *catProc) ask(g Git, req string, names []string, contents bool, each func(i int, oid, kind string, body []byte) error) error {
	reused := c.proc != nil
	if !reused {
		p, in, err := g.start([]string{"cat-file", "--batch-command", "--buffer"}, true)
		if err != nil {
			return err
		}
		c.proc, c.in, c.r = p, in, bufio.NewReaderSize(p.Stdout(), 64<<10)
	}
	// Written while the answers are read: a request larger than the pipe
	// would otherwise wait for a reader that waits for it.
	wrote := make(chan error, 1)
	in := c.in
	go func() {
		_, err := io.WriteString(in, req)
		wrote <- err
	}()
	for i, name := range names {
		oid, kind, body, err := ReadBatchAnswer(c.r, name, contents)
		if err != nil {
			// git is gone: its error says why. One that served earlier
			// requests may have lost its directory (a worktree removed and
			// made again): a new one is asked once more.
			if werr := c.end(); werr != nil {
				err = werr
			}
			<-wrote
			if reused && i == 0 {
				return c.ask(g, req, names, contents, each)
			}
			return err
		}
		if err := each(i, oid, kind, body); err != nil {
			// The conversation is out of step now: end it (which unblocks
			// the writer) and start another at the next request.
			c.stop()
			<-wrote
			return err
		}
	}
	if err := <-wrote; err != nil {
		c.stop()
		return err
	}
	return nil
}

// stop kills git, for a conversation given up half-way.
func (c *catProc) stop() {
	c.in.Close()
	c.proc.Kill()
	c.proc, c.in, c.r = nil, nil, nil
}

// end waits for a git that stopped answering and returns how it ended.
func (c *catProc) end() error {
	c.in.Close()
	err := c.proc.Wait()
	c.proc, c.in, c.r = nil, nil, nil
	return err
}

// Object is Cat for one name, with its content.
func (g Git) Object(name string) (oid, kind string, body []byte, err error) {
	err = g.Cat([]string{name}, true, func(_ int, o, k string, b []byte) error {
		oid, kind, body = o, k, b
		return nil
	})
	return oid, kind, body, err
}

// Blob is the content of the blob name ("HEAD:path"); a name that is no
// blob is an *Error as from git cat-file blob, exit code 128.
func (g Git) Blob(name string) ([]byte, error) {
	_, kind, body, err := g.Object(name)
	if err != nil {
		return nil, err
	}
	if kind != "blob" {
		return nil, &Error{Args: []string{"cat-file", "blob", name}, Dir: g.Dir, ExitCode: 128, Stderr: "fatal: Not a valid object name " + name}
	}
	return body, nil
}

// Resolve is the object id name resolves to, "" when it resolves to
// nothing (as rev-parse -q --verify).
func (g Git) Resolve(name string) (string, error) {
	var oid string
	err := g.Cat([]string{name}, false, func(_ int, o, _ string, _ []byte) error {
		oid = o
		return nil
	})
	return oid, err
}

// ReadBatchAnswer reads one answer of git cat-file --batch (contents) or
// --batch-check to a request for name: id, type ("missing" when there is
// none, as for an ambiguous name) and content.
func ReadBatchAnswer(r *bufio.Reader, name string, contents bool) (oid, kind string, body []byte, err error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", "", nil, fmt.Errorf("git cat-file --batch: no answer for %s", name)
	}
	// "<oid> <type> <size>", else "<name> missing" (or "ambiguous"): the
	// name may hold spaces, its answer is known by its end.
	f := strings.Fields(line)
	n := -1
	if len(f) == 3 {
		if v, err := strconv.Atoi(f[2]); err == nil && v >= 0 && isHex(f[0]) {
			n = v
		}
	}
	if n < 0 {
		if t := strings.TrimSpace(line); strings.HasSuffix(t, " missing") || strings.HasSuffix(t, " ambiguous") {
			return "", "missing", nil, nil
		}
		return "", "", nil, fmt.Errorf("git cat-file --batch: %s: %q", name, strings.TrimSpace(line))
	}
	if !contents {
		return f[0], f[1], nil, nil
	}
	body = make([]byte, n+1)
	if _, err := io.ReadFull(r, body); err != nil {
		return "", "", nil, err
	}
	return f[0], f[1], body[:n], nil
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// Has reports whether name resolves to an object (as git cat-file -e),
// "X^{commit}" to a commit.
func (g Git) Has(name string) bool {
	oid, err := g.Resolve(name)
	return err == nil && oid != ""
}

// revParse answers the plain forms of rev-parse burl asks ("rev-parse
// NAME...", "rev-parse -q --verify NAME") through the process's one
// cat-file instead of another git (DESIGN §28), with rev-parse's output
// and exit codes: 1 for a name -q --verify finds nothing for, else 128.
// ok is false for every other form, which runs git as asked.
func (g Git) revParse(args []string) (out []byte, err error, ok bool) {
	if len(args) < 2 || args[0] != "rev-parse" {
		return nil, nil, false
	}
	var names []string
	verify, quiet := false, false
	for _, a := range args[1:] {
		switch {
		case a == "--verify":
			verify = true
		case a == "-q" || a == "--quiet":
			quiet = true
		case a == "" || strings.HasPrefix(a, "-") || strings.ContainsAny(a, "\n\r"):
			return nil, nil, false
		default:
			names = append(names, a)
		}
	}
	if len(names) == 0 || verify && len(names) != 1 || quiet && !verify {
		return nil, nil, false
	}
	oids := make([]string, len(names))
	var ask []string
	var at []int
	for i, n := range names {
		// rev-parse hands a full object id back unread.
		if ValidObjectID(n) {
			oids[i] = n
			continue
		}
		ask = append(ask, n)
		at = append(at, i)
	}
	missing := -1
	err = g.Cat(ask, false, func(i int, oid, _ string, _ []byte) error {
		if oid == "" && (missing < 0 || at[i] < missing) {
			missing = at[i]
		}
		oids[at[i]] = oid
		return nil
	})
	if err != nil {
		return nil, err, true
	}
	if missing >= 0 {
		name := names[missing]
		switch {
		case quiet:
			return nil, &Error{Args: args, Dir: g.Dir, ExitCode: 1}, true
		case verify:
			return nil, &Error{Args: args, Dir: g.Dir, ExitCode: 128, Stderr: "fatal: Needed a single revision"}, true
		}
		// rev-parse prints what it resolved, and the name it could not.
		out := strings.Join(append(oids[:missing:missing], name), "\n") + "\n"
		return []byte(out), &Error{Args: args, Dir: g.Dir, ExitCode: 128, Stderr: "fatal: ambiguous argument '" + name + "': unknown revision or path not in the working tree."}, true
	}
	return []byte(strings.Join(oids, "\n") + "\n"), nil, true
}

// showRef answers "show-ref --verify -q refs/..." (whether the ref exists)
// through the process's one cat-file, as revParse does rev-parse.
func (g Git) showRef(args []string) (err error, ok bool) {
	if len(args) != 4 || args[0] != "show-ref" {
		return nil, false
	}
	flags, ref := args[1:3], args[3]
	if !slices.Contains(flags, "--verify") || !slices.Contains(flags, "-q") && !slices.Contains(flags, "--quiet") ||
		!strings.HasPrefix(ref, "refs/") || strings.ContainsAny(ref, "^~:@{}\\ \n\r\t*?[") {
		return nil, false
	}
	oid, err := g.Resolve(ref)
	if err != nil {
		return err, true
	}
	if oid == "" {
		return &Error{Args: args, Dir: g.Dir, ExitCode: 1}, true
	}
	return nil, true
}
