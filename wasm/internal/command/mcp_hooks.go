// A host's own MCP client (the mcpClient option), reached through hooks:
// "mcp.listTools" ({} → {"tools": [...]}), "mcp.callTool" ({"name",
// "arguments"} → {"content", "structuredContent"?, "isError"?}) and
// "mcp.close" ({} → anything).

package command

import (
	"bytes"
	"context"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"time"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/session"
	"github.com/agentwasm/agentwasm/session/mcpclient"
)

// hookMCP is an MCPClient whose methods are host hooks.
type hookMCP struct{ h hostHooks }

func (m hookMCP) ListTools(ctx context.Context) ([]mcpclient.Tool, error) {
	b, err := m.h.answer(ctx, "mcp.listTools", []byte("{}"))
	if err != nil {
		return nil, err
	}
	// Read as discovery reads a server's answer: a hostile descriptor is
	// refused by itself (named in the report), not with the whole list.
	tools, _, err := mcpclient.ReadToolList(b)
	if err != nil {
		return nil, errs.New("the mcpClient's listTools answered ", errs.Trunc(string(b), 60), ", not {tools: [...]}: ", err.Error())
	}
	return tools, nil
}

func (m hookMCP) CallTool(ctx context.Context, name string, args session.RawJSON) (mcpclient.ToolResult, error) {
	p, _ := wire.Marshal(&wire.MCPCallToolParams{Name: name, Arguments: rawjson.Message(args)})
	b, err := m.h.answer(ctx, "mcp.callTool", p)
	if err != nil {
		return mcpclient.ToolResult{}, err
	}
	var r wire.MCPCallToolResult
	if err := wire.Unmarshal(b, &r); err != nil {
		return mcpclient.ToolResult{}, errs.New("the mcpClient's callTool answered ", errs.Trunc(string(b), 60), ", not a tool result: ", err.Error())
	}
	res := mcpclient.ToolResult{Content: session.RawJSON(r.Content), StructuredContent: session.RawJSON(r.StructuredContent), IsError: r.IsError}
	if te := mcpclient.NewToolError(name, res); te != nil {
		return res, te
	}
	return res, nil
}

// closeBound bounds the mcp.close hook: Reconnect waits for it.
const closeBound = 5 * time.Second

func (m hookMCP) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeBound)
	defer cancel()
	_, err := m.h.answer(ctx, "mcp.close", []byte("{}"))
	return err
}

// approveBound bounds the studioTools.approve hook, which the policy calls
// without a context.
const approveBound = 5 * time.Second

// approve asks the studioTools.approve hook ({"name","description",
// "classification"?} → true or false). No answer, or anything but true,
// is a veto.
func (h hostHooks) approve(e session.ToolCatalogEntry) bool {
	ctx, cancel := context.WithTimeout(context.Background(), approveBound)
	defer cancel()
	p := wire.BuildObject([]wire.Field{
		{Key: "name", Value: wire.EncodeString(e.Name)},
		{Key: "description", Value: wire.EncodeString(e.Description)},
		{Key: "classification", Value: classificationJSON(e.Classification)},
	})
	b, err := h.answer(ctx, "studioTools.approve", p)
	return err == nil && string(bytes.TrimSpace(b)) == "true"
}

func classificationJSON(c *session.ToolClassification) rawjson.Message {
	if c == nil {
		return rawjson.Message("null")
	}
	sc := wire.StudioClassification{Family: c.Family, View: c.View}
	if c.Revision != "" {
		sc.Revision = wire.EncodeString(c.Revision)
	}
	b, _ := wire.Marshal(&sc)
	return b
}
