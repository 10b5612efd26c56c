// Package mcp is `git burl mcp`: burl served to agents that speak the
// Model Context Protocol, over stdin and stdout, with the official Go SDK
// (linked into git-burl-mcp only). It offers one tool, burl, whose action
// argument names what to do, and the task files as resources. Every call
// runs the verbs' own code (pkg/verb) in the directory the call names or
// the client's roots, so every rule of the command line holds here too.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/verb/views"
	"github.com/burl-dev/burl/pkg/version"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Options configure a server.
type Options struct {
	// Dir is where a call that names no cwd acts, rather than in the
	// client's roots (watch's presets pass the task's worktree); "" for
	// none.
	Dir string
}

type server struct {
	opts  Options
	sdk   *sdk.Server
	roots roots
	// large is the transport's way around the SDK's encoder for large
	// answers; nil on another transport.
	large *large
	// mu lets one verb run at a time, as each had a process of its own on
	// the command line; closed (under mu) refuses calls once the client
	// has gone, so that none starts after the server decided to stop.
	mu         sync.Mutex
	closed     bool
	lastAnswer int // bytes
}

func newServer(o Options) *server {
	s := &server{opts: o}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "burl", Version: version.Version}, &sdk.ServerOptions{
		// No logging capability (the SDK's default): burl sends no log
		// messages, and every capability is one more thing a client reads.
		Capabilities: &sdk.ServerCapabilities{
			Tools:     &sdk.ToolCapabilities{},
			Resources: &sdk.ResourceCapabilities{},
		},
		RootsListChangedHandler: func(context.Context, *sdk.RootsListChangedRequest) { s.roots.forget() },
	})
	s.sdk.AddTool(&sdk.Tool{Name: toolName, Description: toolDesc, InputSchema: json.RawMessage(toolSchema)}, s.callTool)
	s.addResources()
	return s
}

// Serve answers one client on t until it disconnects or ctx ends. A call
// under way then runs to its end: whether a transition happened is the
// transaction runner's to decide, never the transport's, so the client
// going away never leaves half a claim. However the session ends (the
// client closed its input, its output broke, ctx ended) is a clean stop;
// the only error is a transport that could not connect.
func Serve(ctx context.Context, t sdk.Transport, o Options) error {
	s := newServer(o)
	if st, ok := t.(*stdio); ok {
		s.large = st.large
	}
	ss, err := s.sdk.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	ended := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			ss.Close()
		case <-ended:
		}
	}()
	_ = ss.Wait()
	close(ended)
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return nil
}

func (s *server) callTool(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	a, act, err := parseArgs(req.Params.Arguments)
	if err != nil {
		return toolError(err, "mcp"), nil
	}
	p := placeOf(req.Session, req.ClientCapabilities(), req.Params.InputResponses)
	p.cwd = a.Cwd
	dir, need, err := s.where(ctx, p)
	if need {
		return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{rootsKey: &sdk.ListRootsParams{}}}, nil
	}
	if err != nil {
		return toolError(err, act.verb), nil
	}
	doc, warnings, err := s.run(dir, func(c *cli.Context) error {
		switch a.Action {
		case "why":
			return why(c, a.ID)
		case "scope_request":
			if a.ID == "" {
				if a.ID, err = currentTask(c, "scope"); err != nil {
					return err
				}
			}
		}
		return cli.Invoke(c, act.verb, act.cmd(), act.argv(a))
	})
	if err != nil {
		return toolError(err, act.verb), nil
	}
	return s.result(doc, warnings), nil
}

// run calls f with a command context for dir, one call at a time, and
// returns what f wrote to its stdout. The verb gets no stdin (the client's
// messages arrive there) and its stderr is kept for the answer.
func (s *server) run(dir string, f func(*cli.Context) error) (out []byte, warnings string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, "", stopping
	}
	// Sized as the last answer: a status of thousands of tasks would
	// otherwise be copied as the buffer doubles.
	var stdout, stderr bytes.Buffer
	stdout.Grow(s.lastAnswer)
	err = f(&cli.Context{Stdout: &stdout, Stderr: &stderr, Stdin: strings.NewReader(""), Dir: dir})
	s.lastAnswer = stdout.Len()
	return stdout.Bytes(), stderr.String(), err
}

// currentTask is the task whose worktree c.Dir is in, as the verbs that
// take an optional ID find it.
func currentTask(c *cli.Context, verbName string) (string, error) {
	w, err := workflow.Open(c.Dir)
	if err != nil {
		return "", err
	}
	w.Stderr = c.Stderr
	return w.TaskArgOrCurrent(nil, c.Dir, verbName)
}

// why is a task as status lists it, with the next command and what it
// waits on (the one answer status, show and the board give), and its QA
// report, where rejections and scope requests are written.
func why(c *cli.Context, id string) error {
	w, err := workflow.Open(c.Dir)
	if err != nil {
		return err
	}
	w.Stderr = c.Stderr
	var ids []string
	if id != "" {
		ids = []string{id}
	}
	if id, err = w.TaskArgOrCurrent(ids, c.Dir, "show"); err != nil {
		return err
	}
	e, err := w.Get(id)
	if err != nil {
		return err
	}
	var doc bytes.Buffer
	sc := *c
	sc.Stdout = &doc
	if err := cli.Invoke(&sc, "status", views.Status(), []string{"--json", "--bucket=" + string(e.Bucket)}); err != nil {
		return err
	}
	var st struct {
		Tasks []json.RawMessage `json:"tasks"`
	}
	if err := json.Unmarshal(doc.Bytes(), &st); err != nil {
		return err
	}
	out := struct {
		OK       bool            `json:"ok"`
		Task     json.RawMessage `json:"task"`
		QAReport string          `json:"qa_report"`
	}{OK: true, QAReport: e.Task.Section("QA Report")}
	for _, t := range st.Tasks {
		var head struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(t, &head) == nil && head.ID == e.ID {
			out.Task = t
			break
		}
	}
	return json.NewEncoder(c.Stdout).Encode(out)
}
