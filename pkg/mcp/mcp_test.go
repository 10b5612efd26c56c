package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/burl-dev/burl/internal/gittest"
	"github.com/burl-dev/burl/pkg/catalog"
	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/verb"
	"github.com/burl-dev/burl/pkg/verb/authoring"
	"github.com/burl-dev/burl/pkg/verb/upkeep"
	"github.com/burl-dev/burl/pkg/verb/views"
)

// The tests drive the server with the official Go SDK's client over the
// same transport git burl mcp uses, in real repositories; the verbs run in
// this process, as they do in the server.

const (
	legacy = "2025-11-25" // the initialize handshake; the server may ask for roots
	latest = ""           // the SDK's newest: roots come as embedded requests
)

// newWorkflow is a repository with burl initialised and three tasks, the
// first scoped to src/**.
func newWorkflow(t *testing.T) string {
	t.Helper()
	dir := gittest.NewRepo(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("BURL_ACTOR", "tester")
	burl(t, dir, "init", upkeep.Init())
	burl(t, dir, "add", authoring.Add(), "Parse the header", "--affects-glob", "src/**")
	burl(t, dir, "add", authoring.Add(), "Write the docs", "--affects-glob", "docs/**")
	burl(t, dir, "add", authoring.Add(), "Third", "--affects", "third.txt")
	return dir
}

// burl runs a verb as its binary would, in dir, and returns its stdout.
func burl(t *testing.T, dir, name string, cmd cli.Command, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	v, _ := catalog.Find(name)
	ctx := &cli.Context{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""), Dir: dir}
	if rc := cli.Exec(ctx, name, v.Usage, v.Summary, cmd, args); rc != 0 {
		t.Fatalf("git burl %s %v: exit %d\n%s%s", name, args, rc, out.String(), errb.String())
	}
	return out.String()
}

// connect starts a server on pipes and connects the SDK's client to it,
// offering roots (none: no roots capability at all).
func connect(t *testing.T, o Options, version string, roots ...string) *sdk.ClientSession {
	t.Helper()
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), Stdio(sr, sw), o)
		sw.Close()
	}()
	var opts *sdk.ClientOptions
	if roots == nil {
		opts = &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts)
	for _, r := range roots {
		c.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: r}).String()})
	}
	cs, err := c.Connect(context.Background(), &sdk.IOTransport{Reader: cr, Writer: cw}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return cs
}

type answer struct {
	isError bool
	text    string
	res     *sdk.CallToolResult
}

func call(t *testing.T, cs *sdk.ClientSession, args map[string]any) answer {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "burl", Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %v: %v", args, err)
	}
	a := answer{isError: res.IsError, res: res}
	if len(res.Content) > 0 {
		a.text = res.Content[0].(*sdk.TextContent).Text
	}
	return a
}

// ok is a successful call's JSON document.
func ok(t *testing.T, a answer) map[string]any {
	t.Helper()
	if a.isError {
		t.Fatalf("tool error:\n%s", a.text)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(a.text), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, a.text)
	}
	return doc
}

// refused checks a tool error carries the command line's Reason and Fix,
// and the words want.
func refused(t *testing.T, a answer, want ...string) {
	t.Helper()
	if !a.isError {
		t.Fatalf("want a tool error, got:\n%s", a.text)
	}
	for _, w := range append([]string{"Reason: ", "Fix: "}, want...) {
		if !strings.Contains(a.text, w) {
			t.Errorf("tool error lacks %q:\n%s", w, a.text)
		}
	}
}

func taskField(t *testing.T, dir, id, key string) any {
	t.Helper()
	var doc struct {
		Task map[string]any `json:"task"`
	}
	if err := json.Unmarshal([]byte(burl(t, dir, "show", views.Show(), "--json", id)), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Task[key]
}

func TestToolsListFitsItsBudget(t *testing.T) {
	cs := connect(t, Options{}, latest)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != "burl" {
		t.Fatalf("want the one tool burl, got %d tools", len(res.Tools))
	}
	data, _ := json.Marshal(res)
	// A token is about 4 characters of English and JSON (cl100k averages
	// a little more); 600 tokens is the contract, kept well under.
	if tokens := len(data) / 4; tokens > 450 {
		t.Errorf("tools/list is %d bytes, ~%d tokens: over 450", len(data), tokens)
	}
	var schema struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	raw, _ := json.Marshal(res.Tools[0].InputSchema)
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(schema.Properties["action"].Enum, " "); got != "status show why claim submit validate log scope_request propose" {
		t.Errorf("actions: %s", got)
	}
	if len(actions) != len(schema.Properties["action"].Enum) {
		t.Errorf("the schema names %d actions, the server has %d", len(schema.Properties["action"].Enum), len(actions))
	}
}

func TestStatusIsStatusJSON(t *testing.T) {
	dir := newWorkflow(t)
	burl(t, dir, "claim", verb.Claim(), "TASK-002")
	cs := connect(t, Options{}, latest)
	for _, open := range []bool{false, true} {
		args := []string{"--json"}
		in := map[string]any{"action": "status", "cwd": dir}
		if open {
			args = append(args, "--open")
			in["open"] = true
		}
		want := burl(t, dir, "status", views.Status(), args...)
		a := call(t, cs, in)
		if a.isError || a.text != strings.TrimSuffix(want, "\n") {
			t.Errorf("status (open %v) over MCP:\n%s\nwant what git burl status %s prints:\n%s", open, a.text, strings.Join(args, " "), want)
		}
	}
}

// An agent whose client has the main checkout open claims, and is told
// where to work.
func TestClaimFromTheMainCheckout(t *testing.T) {
	for _, version := range []string{legacy, latest} {
		t.Run("protocol "+version, func(t *testing.T) {
			dir := newWorkflow(t)
			cs := connect(t, Options{}, version, dir)
			doc := ok(t, call(t, cs, map[string]any{"action": "claim"}))
			wt, _ := doc["worktree"].(string)
			if st, err := os.Stat(wt); err != nil || !st.IsDir() {
				t.Fatalf("claim answered worktree %q: %v", wt, err)
			}
			if b := taskField(t, dir, "TASK-001", "bucket"); b != "DOING" {
				t.Errorf("TASK-001 is in %v after claim", b)
			}
		})
	}
}

// The server was started in a directory that is no repository at all; the
// client's root is the task's worktree, and that is where the calls act.
func TestTheWorktreeComesFromTheRootsNotFromWhereTheServerStarted(t *testing.T) {
	for _, version := range []string{legacy, latest} {
		t.Run("protocol "+version, func(t *testing.T) {
			dir := newWorkflow(t)
			wt := strings.TrimSpace(lastLine(burl(t, dir, "claim", verb.Claim(), "TASK-001")))
			t.Chdir(t.TempDir())
			cs := connect(t, Options{}, version, wt)
			doc := ok(t, call(t, cs, map[string]any{"action": "show"}))
			if id := doc["task"].(map[string]any)["id"]; id != "TASK-001" {
				t.Fatalf("show without an ID in TASK-001's worktree showed %v", id)
			}
			commitFile(t, wt, "src/header.go", "package src\n")
			ok(t, call(t, cs, map[string]any{"action": "submit"}))
			if b := taskField(t, dir, "TASK-001", "bucket"); b != "QA" {
				t.Errorf("TASK-001 is in %v after submit from its worktree", b)
			}
		})
	}
}

// commitFile writes a file in the worktree wt and commits it.
func commitFile(t *testing.T, wt, name, content string) {
	t.Helper()
	p := filepath.Join(wt, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, wt, "add", "-A")
	gittest.Git(t, wt, "commit", "-q", "-m", "edit "+name)
}

func lastLine(s string) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return l[len(l)-1]
}

func TestARefusalIsAToolErrorWithReasonAndFix(t *testing.T) {
	dir := newWorkflow(t)
	cs := connect(t, Options{}, latest, dir)
	a := call(t, cs, map[string]any{"action": "submit", "id": "TASK-002"})
	refused(t, a, "TASK-002")
	var doc struct {
		OK    bool `json:"ok"`
		Error struct {
			Kind string `json:"kind"`
			Fix  string `json:"fix"`
		} `json:"error"`
	}
	raw, _ := json.Marshal(a.res.StructuredContent)
	if err := json.Unmarshal(raw, &doc); err != nil || doc.OK || doc.Error.Kind != "user" || doc.Error.Fix == "" {
		t.Errorf("structured content is not the --json error document: %s", raw)
	}
}

// An untrusted build command refuses validate over MCP as on the command
// line: the server runs the same gate code.
func TestAnUntrustedCommandRefuses(t *testing.T) {
	dir := newWorkflow(t)
	wt := lastLine(burl(t, dir, "claim", verb.Claim(), "TASK-003"))
	commitFile(t, wt, "third.txt", "3\n")
	burl(t, wt, "submit", verb.Submit())
	cfg := filepath.Join(dir, ".burl", ".workflow", "config.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if strings.HasPrefix(l, "build_command:") {
			l = "build_command: \"echo planted\"\n"
		}
		b.WriteString(l)
	}
	if err := os.WriteFile(cfg, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, filepath.Join(dir, ".burl"), "commit", "-q", "-am", "a new build command")
	cs := connect(t, Options{}, latest, dir)
	refused(t, call(t, cs, map[string]any{"action": "validate", "id": "TASK-003"}), "git burl trust")
}

func TestScopeRequestWidensNothing(t *testing.T) {
	dir := newWorkflow(t)
	wt := lastLine(burl(t, dir, "claim", verb.Claim(), "TASK-001"))
	cs := connect(t, Options{}, latest, wt)
	doc := ok(t, call(t, cs, map[string]any{"action": "scope_request", "paths": []string{"docs/notes.md"}, "reason": "the header is documented"}))
	if doc["requested"] != true {
		t.Errorf("scope_request answered %v", doc)
	}
	if got := taskField(t, dir, "TASK-001", "affects"); len(got.([]any)) != 0 {
		t.Errorf("affects widened to %v", got)
	}
	if got, _ := taskField(t, dir, "TASK-001", "scope_request").(string); !strings.Contains(got, "docs/notes.md") {
		t.Errorf("scope_request field: %q", got)
	}
	log := burl(t, dir, "log", views.Log(), "--json", "--task", "TASK-001", "--action", "scope_request")
	if !strings.Contains(log, "the header is documented") {
		t.Errorf("no scope_request event:\n%s", log)
	}
	// The gates keep the old scope: work on the requested file is refused.
	commitFile(t, wt, "docs/notes.md", "notes\n")
	refused(t, call(t, cs, map[string]any{"action": "submit"}), "docs/notes.md")
}

func TestWhyAndLog(t *testing.T) {
	dir := newWorkflow(t)
	cs := connect(t, Options{}, latest, dir)
	doc := ok(t, call(t, cs, map[string]any{"action": "why", "id": "task-2"}))
	task := doc["task"].(map[string]any)
	if task["id"] != "TASK-002" || task["suggest"] != "git burl claim TASK-002" {
		t.Errorf("why: %v", task)
	}
	ok(t, call(t, cs, map[string]any{"action": "claim", "id": "TASK-002"}))
	doc = ok(t, call(t, cs, map[string]any{"action": "log", "id": "TASK-002"}))
	if ev := doc["events"].([]any); len(ev) != 2 || ev[1].(map[string]any)["action"] != "claim" {
		t.Errorf("log of TASK-002: %v", ev)
	}
}

func TestBadArguments(t *testing.T) {
	dir := newWorkflow(t)
	outside := t.TempDir()
	cs := connect(t, Options{}, latest)
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "stats", "cwd": dir}, `did you mean "action": "status"`},
		{map[string]any{"cwd": dir}, "the action argument is missing"},
		{map[string]any{"action": "show", "id": 7, "cwd": dir}, `argument "id" must be a string`},
		{map[string]any{"action": "status", "id": "TASK-001", "cwd": dir}, `action status does not take "id"`},
		{map[string]any{"action": "status", "color": true, "cwd": dir}, `unknown field "color"`},
		{map[string]any{"action": "status", "cwd": "relative/dir"}, "is not an absolute path"},
		{map[string]any{"action": "status", "cwd": outside}, outside + " is not inside a git repository"},
		{map[string]any{"action": "status"}, "the client lists no roots"},
		{map[string]any{"action": "scope_request", "id": "TASK-001", "reason": "r", "cwd": dir}, "needs at least one of"},
		{map[string]any{"action": "show", "id": "--all", "cwd": dir}, "--all"},
	} {
		refused(t, call(t, cs, c.args), c.want)
	}
}

func TestARootOutsideAnyRepositoryIsNamed(t *testing.T) {
	outside := t.TempDir()
	for _, version := range []string{legacy, latest} {
		cs := connect(t, Options{}, version, outside)
		refused(t, call(t, cs, map[string]any{"action": "status"}), "the client's roots are outside any git repository: "+outside)
	}
}

func TestDirIsTheLastResort(t *testing.T) {
	dir := newWorkflow(t)
	cs := connect(t, Options{Dir: dir}, latest)
	ok(t, call(t, cs, map[string]any{"action": "status", "open": true}))
}

func TestTaskFilesAreResources(t *testing.T) {
	dir := newWorkflow(t)
	burl(t, dir, "claim", verb.Claim(), "TASK-001")
	for _, version := range []string{legacy, latest} {
		cs := connect(t, Options{}, version, dir)
		ctx := context.Background()
		if version == legacy {
			list, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, r := range list.Resources {
				got[r.URI] = r.Name + " " + r.Description + " " + r.Title
			}
			if len(got) != 3 || got["burl://task/TASK-001"] != "TASK-001 DOING Parse the header" {
				t.Errorf("resources: %v", got)
			}
		}
		res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "burl://task/TASK-001"})
		if err != nil {
			t.Fatal(err)
		}
		matches, _ := filepath.Glob(filepath.Join(dir, ".burl", ".workflow", "DOING", "TASK-001-*.md"))
		want, _ := os.ReadFile(matches[0])
		if res.Contents[0].Text != string(want) || res.Contents[0].MIMEType != "text/markdown" {
			t.Errorf("burl://task/TASK-001 read %q", res.Contents[0].Text)
		}
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "burl://task/TASK-999"}); err == nil || !strings.Contains(err.Error(), "TASK-999") {
			t.Errorf("reading a task that does not exist: %v", err)
		}
	}
}

// raw drives the server with lines as a client would write them, closing
// its input after them; it returns every line the server wrote.
func raw(t *testing.T, o Options, lines ...string) []string {
	t.Helper()
	in := strings.NewReader(strings.Join(lines, "\n") + "\n")
	var out bytes.Buffer
	if err := Serve(context.Background(), Stdio(in, &out), o); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	var got []string
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		got = append(got, sc.Text())
	}
	return got
}

const (
	initialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`
	initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// A line that is not JSON-RPC is answered, and the session goes on.
func TestMalformedLinesAreAnsweredAndSkipped(t *testing.T) {
	got := raw(t, Options{}, initialize, initialized, "this is not json", `{"id":3}`, `[1,`, "",
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	all := strings.Join(got, "\n")
	for _, want := range []string{`"code":-32700`, `"code":-32600`, `"id":2,"result":{`, `"name":"burl"`} {
		if !strings.Contains(all, want) {
			t.Errorf("no %s in:\n%s", want, all)
		}
	}
	if len(got) != 5 {
		t.Errorf("want 5 answers (initialize, 3 errors, tools/list), got %d:\n%s", len(got), all)
	}
}

// A client that writes its call and goes away: the claim is done whole
// and answered, and the server stops cleanly.
func TestAClientThatLeavesMidCallLeavesNoHalfTransition(t *testing.T) {
	dir := newWorkflow(t)
	claim := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"burl","arguments":{"action":"claim","cwd":"` + dir + `"}}}`
	got := raw(t, Options{}, initialize, initialized, claim)
	if len(got) != 2 || !strings.Contains(got[1], `\"worktree\":`) {
		t.Fatalf("answers: %q", got)
	}
	if b := taskField(t, dir, "TASK-001", "bucket"); b != "DOING" {
		t.Errorf("TASK-001 is in %v", b)
	}
	// Its output gone as well: nothing to answer to, the claim still whole.
	r, w := io.Pipe()
	go func() {
		_, _ = io.WriteString(w, strings.Join([]string{initialize, initialized, strings.ReplaceAll(claim, `"claim"`, `"claim","id":"TASK-002"`)}, "\n")+"\n")
		w.Close()
	}()
	if err := Serve(context.Background(), Stdio(r, &breaksAfter{n: 1}), Options{}); err != nil {
		t.Errorf("Serve with a broken output: %v", err)
	}
	if b := taskField(t, dir, "TASK-002", "bucket"); b != "DOING" {
		t.Errorf("TASK-002 is in %v", b)
	}
	burl(t, dir, "doctor", upkeep.Doctor())
}

// breaksAfter takes n writes (the answer to initialize), then fails as a
// pipe whose reader has gone.
type breaksAfter struct{ n int }

func (b *breaksAfter) Write(p []byte) (int, error) {
	if b.n == 0 {
		return 0, io.ErrClosedPipe
	}
	b.n--
	return len(p), nil
}

// A client that announces roots and never answers roots/list (Claude Code
// did) gets its answer after rootsWait, and is not asked again.
func TestAClientThatNeverAnswersRootsIsNotWaitedOnTwice(t *testing.T) {
	rootsWait = 200 * time.Millisecond
	t.Cleanup(func() { rootsWait = 3 * time.Second })
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), Stdio(sr, sw), Options{}); sw.Close() }()
	out := bufio.NewScanner(cr)
	out.Buffer(nil, 1<<24)
	send := func(line string) {
		if _, err := io.WriteString(cw, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// read skips notifications (the server cancels the roots/list it gave
	// up on).
	read := func() string {
		for out.Scan() {
			if !strings.Contains(out.Text(), `"method":"notifications/`) {
				return out.Text()
			}
		}
		t.Fatalf("the server stopped: %v", out.Err())
		return ""
	}
	send(strings.Replace(initialize, `"capabilities":{}`, `"capabilities":{"roots":{"listChanged":true}}`, 1))
	read()
	send(initialized)
	status := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"burl","arguments":{"action":"status"}}}`
	for i, asked := range []bool{true, false} {
		t0 := time.Now()
		send(fmt.Sprintf(status, 10+i))
		line := read()
		if asked {
			if !strings.Contains(line, `"method":"roots/list"`) {
				t.Fatalf("want a roots/list request, got %s", line)
			}
			line = read()
		}
		if !strings.Contains(line, `"isError":true`) || !strings.Contains(line, "did not answer roots/list") {
			t.Errorf("answer: %s", line)
		}
		if took := time.Since(t0); asked && took < rootsWait || !asked && took > rootsWait {
			t.Errorf("call %d took %v", i, took)
		}
	}
	cw.Close()
	for out.Scan() {
	}
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// Large answers skip the SDK's encoder (large.go): what the client reads
// is still the verb's document, byte for byte, in both protocol eras.
func TestALargeAnswerIsTheDocumentWhole(t *testing.T) {
	largeAnswer = 0
	t.Cleanup(func() { largeAnswer = 64 << 10 })
	dir := newWorkflow(t)
	burl(t, dir, "add", authoring.Add(), `A "quoted" title \ with a backslash, tab	and é`, "--affects", "q.txt")
	want := strings.TrimSuffix(burl(t, dir, "status", views.Status(), "--json"), "\n")
	for _, version := range []string{legacy, latest} {
		cs := connect(t, Options{}, version, dir)
		for i := 0; i < 2; i++ {
			if a := call(t, cs, map[string]any{"action": "status"}); a.isError || a.text != want {
				t.Errorf("protocol %q: status over MCP:\n%s\nwant:\n%s", version, a.text, want)
			}
		}
	}
	// A batch's answers go through the SDK's connection, filled all the same.
	status := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"burl","arguments":{"action":"status","cwd":"` + dir + `"}}}`
	got := raw(t, Options{}, strings.Replace(initialize, "2025-06-18", "2025-03-26", 1), initialized, "["+fmt.Sprintf(status, 2)+","+fmt.Sprintf(status, 3)+"]")
	if len(got) != 2 || !strings.Contains(got[1], `"id":2`) || !strings.Contains(got[1], `"id":3`) || !strings.Contains(got[1], `A \\\"quoted\\\" title`) {
		t.Errorf("batch answers: %q", got)
	}
}
