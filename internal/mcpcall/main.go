// Command mcpcall is a small client of `git burl mcp` built on the official
// Go SDK's client, for the bats tests and the bench (it is not installed):
//
//	mcpcall [--root DIR]... [--protocol VERSION] [--repeat N] [--disconnect-after D] ARGS_JSON... -- SERVER_ARGV...
//
// It starts the server, offers the roots DIR (as file:// URIs), and calls
// the tool burl with each ARGS_JSON in turn, printing one JSON line per
// answer: {"is_error": bool, "text": the first content's text, "more":
// the other contents' texts}. --list prints the tools/list answer instead;
// --resources lists the resources and reads each ARGS_JSON as a URI.
// --repeat N times N calls of the first ARGS_JSON after one warm-up and
// prints {"calls":N,"median_ms":..,"min_ms":..,"max_ms":..}; with --raw it
// writes JSON-RPC lines itself and times each call until its whole answer
// is read, not decoded (as git burl status --json is timed until its
// output is written, not parsed): the server's time, not this client's,
// whose SDK passes over a 6 MB answer five times. --disconnect-after D
// closes the connection D into the first call, as a client that goes away.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type rootsFlag []string

func (r *rootsFlag) String() string     { return fmt.Sprint(*r) }
func (r *rootsFlag) Set(v string) error { *r = append(*r, v); return nil }

func main() {
	var roots rootsFlag
	flag.Var(&roots, "root", "offer DIR as a root (repeatable)")
	protocol := flag.String("protocol", "", "protocol version to ask for (default: the SDK's latest)")
	repeat := flag.Int("repeat", 0, "time N calls of the first arguments")
	list := flag.Bool("list", false, "print the tools/list answer")
	resources := flag.Bool("resources", false, "list the resources, then read each argument as a URI")
	disconnect := flag.Duration("disconnect-after", 0, "close the connection this long into the first call")
	raw := flag.Bool("raw", false, "with --repeat: time calls written and read as JSON-RPC lines, answers not decoded")
	flag.Parse()
	var calls, argv []string
	for i, a := range flag.Args() {
		if a == "--" {
			calls, argv = flag.Args()[:i], flag.Args()[i+1:]
			break
		}
	}
	if len(argv) == 0 {
		fail(fmt.Errorf("usage: mcpcall [flags] ARGS_JSON... -- SERVER_ARGV..."))
	}
	if *raw && *repeat > 0 {
		timeRaw(argv, calls[0], *repeat)
		return
	}
	ctx := context.Background()
	var opts *mcp.ClientOptions
	if len(roots) == 0 {
		// No roots at all, not an empty list: the client has no roots
		// capability, as most command-line clients.
		opts = &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpcall", Version: "1"}, opts)
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			fail(err)
		}
		client.AddRoots(&mcp.Root{URI: (&url.URL{Scheme: "file", Path: abs}).String()})
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: *protocol})
	if err != nil {
		fail(err)
	}
	out := json.NewEncoder(os.Stdout)
	switch {
	case *list:
		res, err := session.ListTools(ctx, nil)
		if err != nil {
			fail(err)
		}
		_ = out.Encode(res)
	case *resources:
		res, err := session.ListResources(ctx, nil)
		if err != nil {
			fail(err)
		}
		_ = out.Encode(res)
		for _, uri := range calls {
			res, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				_ = out.Encode(map[string]any{"error": err.Error()})
				continue
			}
			_ = out.Encode(res)
		}
	case *repeat > 0:
		params := call(calls[0])
		if _, err := session.CallTool(ctx, params); err != nil {
			fail(err)
		}
		ms := make([]float64, *repeat)
		for i := range ms {
			t0 := time.Now()
			res, err := session.CallTool(ctx, params)
			ms[i] = float64(time.Since(t0).Microseconds()) / 1000
			if err != nil || res.IsError {
				fail(fmt.Errorf("call %d failed: %v", i, err))
			}
		}
		report(ms)
	case *disconnect > 0:
		go func() {
			time.Sleep(*disconnect)
			_ = session.Close()
		}()
		_, err := session.CallTool(ctx, call(calls[0]))
		_ = out.Encode(map[string]any{"disconnected": true, "error": fmt.Sprint(err)})
		_ = cmd.Wait()
		_ = out.Encode(map[string]any{"server_exit": cmd.ProcessState.ExitCode()})
		return
	default:
		for _, c := range calls {
			res, err := session.CallTool(ctx, call(c))
			if err != nil {
				_ = out.Encode(map[string]any{"error": err.Error()})
				continue
			}
			line := map[string]any{"is_error": res.IsError}
			for i, c := range res.Content {
				t, _ := c.(*mcp.TextContent)
				if t == nil {
					continue
				}
				if i == 0 {
					line["text"] = t.Text
				} else {
					line["more"] = append(anySlice(line["more"]), t.Text)
				}
			}
			_ = out.Encode(line)
		}
	}
	if err := session.Close(); err != nil {
		fail(err)
	}
}

func anySlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func call(args string) *mcp.CallToolParams {
	var a map[string]any
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		fail(fmt.Errorf("arguments %s: %v", args, err))
	}
	return &mcp.CallToolParams{Name: "burl", Arguments: a}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mcpcall:", err)
	os.Exit(1)
}

func report(ms []float64) {
	sort.Float64s(ms)
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"calls": len(ms), "median_ms": ms[len(ms)/2], "min_ms": ms[0], "max_ms": ms[len(ms)-1]})
}

// timeRaw times n calls with args (after one warm-up) over the server's
// stdin and stdout, until each answer's line is read; the answer is
// checked to be that call's and no tool error.
func timeRaw(argv []string, args string, n int) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fail(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	answers := bufio.NewReaderSize(outPipe, 1<<20)
	send := func(line string) {
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			fail(err)
		}
	}
	read := func() []byte {
		line, err := answers.ReadBytes('\n')
		if err != nil {
			fail(err)
		}
		return line
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpcall","version":"1"}}}`)
	read()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	ms := make([]float64, n)
	for i := -1; i < n; i++ {
		t0 := time.Now()
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"burl","arguments":%s}}`, i+2, args))
		line := read()
		if i >= 0 {
			ms[i] = float64(time.Since(t0).Microseconds()) / 1000
		}
		if !bytes.HasPrefix(line, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"{\"ok\":true`, i+2)) ||
			bytes.Contains(line, []byte(`"isError":true`)) {
			fail(fmt.Errorf("call %d answered %.300s", i, line))
		}
	}
	in.Close()
	_ = cmd.Wait()
	report(ms)
}
