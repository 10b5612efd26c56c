package mcp

import (
	"context"
	"encoding/json"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/burl-dev/burl/pkg/cli"
	"github.com/burl-dev/burl/pkg/errs"
	"github.com/burl-dev/burl/pkg/task"
	"github.com/burl-dev/burl/pkg/verb/views"
	"github.com/burl-dev/burl/pkg/workflow"
)

// Task files are resources burl://task/<ID>: an ID does not change when
// its file moves from bucket to bucket, a path does.
const (
	taskURIPrefix = "burl://task/"
	taskMIME      = "text/markdown"
	// statelessProtocol is the first protocol version without the
	// initialize handshake, where a server may not send requests of its
	// own and roots/list_changed is gone.
	statelessProtocol = "2026-07-28"
)

func (s *server) addResources() {
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{
		Name: "task", URITemplate: taskURIPrefix + "{id}", MIMEType: taskMIME,
		Description: "A task file (frontmatter and body), e.g. burl://task/TASK-001",
	}, s.readTask)
	// The SDK lists only resources registered up front; burl's are the
	// tasks of the repository each request resolves to.
	s.sdk.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if r, ok := req.(*sdk.ListResourcesRequest); ok && method == "resources/list" {
				return s.listTasks(ctx, r)
			}
			return next(ctx, method, req)
		}
	})
}

// placeOf is what a request says of where it acts. The server asks for
// roots itself where the protocol version lets it (with a time limit);
// the newest versions only let it embed the request in its answer.
func placeOf(ss *sdk.ServerSession, caps *sdk.ClientCapabilities, responses sdk.InputResponseMap) place {
	p := place{caps: caps, responses: responses}
	ip := ss.InitializeParams()
	if ip == nil || ip.ProtocolVersion >= statelessProtocol || caps == nil || caps.RootsV2 == nil {
		return p
	}
	p.remember = caps.RootsV2.ListChanged
	p.ask = func(ctx context.Context) (*sdk.ListRootsResult, error) { return ss.ListRoots(ctx, nil) }
	return p
}

// listTasks lists the tasks that are not DONE (status --open): a history of
// thousands of DONE tasks would drown the list; each stays readable by its
// URI.
func (s *server) listTasks(ctx context.Context, req *sdk.ListResourcesRequest) (*sdk.ListResourcesResult, error) {
	p := placeOf(req.Session, req.ClientCapabilities(), nil)
	dir, _, err := s.where(ctx, p)
	if err != nil {
		return nil, rpcError(err)
	}
	doc, _, err := s.run(dir, func(c *cli.Context) error {
		return cli.Invoke(c, "status", views.Status(), []string{"--json", "--open"})
	})
	if err != nil {
		return nil, rpcError(err)
	}
	var st struct {
		Tasks []struct {
			ID     string `json:"id"`
			Title  string `json:"title"`
			Bucket string `json:"bucket"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal(doc, &st); err != nil {
		return nil, err
	}
	res := &sdk.ListResourcesResult{Resources: []*sdk.Resource{}}
	for _, t := range st.Tasks {
		res.Resources = append(res.Resources, &sdk.Resource{
			URI: taskURIPrefix + t.ID, Name: t.ID, Title: t.Title, MIMEType: taskMIME, Description: t.Bucket,
		})
	}
	return res, nil
}

// readTask answers a task file as it is on disk.
func (s *server) readTask(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	id, err := task.NormalizeID(strings.TrimPrefix(uri, taskURIPrefix))
	if err != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	dir, need, err := s.where(ctx, placeOf(req.Session, req.ClientCapabilities(), req.Params.InputResponses))
	if need {
		return &sdk.ReadResourceResult{InputRequests: sdk.InputRequestMap{rootsKey: &sdk.ListRootsParams{}}}, nil
	}
	if err != nil {
		return nil, rpcError(err)
	}
	text, _, err := s.run(dir, func(c *cli.Context) error {
		w, err := workflow.Open(c.Dir)
		if err != nil {
			return err
		}
		w.Stderr = c.Stderr
		e, err := w.Get(id)
		if err != nil {
			return err
		}
		if e.Err != nil {
			return errs.New(errs.User, "%s: %v", w.Rel(e.Path), e.Err)
		}
		data, err := os.ReadFile(e.Path)
		if err == nil {
			_, err = c.Stdout.Write(data)
		}
		return err
	})
	if err != nil {
		return nil, rpcError(err)
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: taskMIME, Text: string(text)}}}, nil
}
