// Reading a tools/list result: each tool on its own, so that one tool the
// reader cannot take refuses that tool (discovery reports it), not the page.

package mcpclient

import (
	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// ReadToolList reads one tools/list result, {"tools": [...],
// "nextCursor": "..."}, as an MCP client hands it to discovery. How deeply
// a tool nests is not bounded here: discovery bounds each tool's
// inputSchema and annotations (session.MaxToolSchemaDepth) and refuses the tool
// that breaks a bound, not the page. A descriptor that is not a JSON object
// with string name, title and description is kept, with what could be read
// of its name, for discovery to refuse (session.RejectDescriptor). The error is
// for a result that is not such an object at all; null reads as no tools.
func ReadToolList(data []byte) (tools []Tool, nextCursor string, err error) {
	l := jsonr.Lexer{Data: data, MaxDepth: len(data)}
	if l.IsNull() {
		l.Skip()
		l.Consumed()
		return nil, "", l.Error()
	}
	l.Delim('{')
	for !l.IsDelim('}') {
		key := l.UnsafeFieldName(false)
		l.WantColon()
		switch key {
		case "tools":
			tools = tools[:0] // a repeated member: the last one counts
			if l.IsNull() {
				l.Skip()
				break
			}
			l.Delim('[')
			for !l.IsDelim(']') {
				if raw := l.Raw(); l.Ok() {
					tools = append(tools, readToolDescriptor(raw))
				}
				l.WantComma()
			}
			l.Delim(']')
		case "nextCursor":
			if l.IsNull() {
				l.Skip()
			} else {
				nextCursor = l.String()
			}
		default:
			l.SkipRecursive()
		}
		l.WantComma()
	}
	l.Delim('}')
	l.Consumed()
	if err := l.Error(); err != nil {
		return nil, "", err
	}
	return tools, nextCursor, nil
}

// readToolDescriptor reads one element of a tools/list result's tools.
func readToolDescriptor(raw []byte) Tool {
	if raw[0] != '{' {
		return Tool{Unreadable: "the descriptor is " + jsonr.KindName(raw) + ", not a JSON object"}
	}
	var d wire.MCPToolDescriptor
	l := jsonr.Lexer{Data: raw, MaxDepth: len(raw)}
	d.ReadJSON(&l)
	if err := l.Error(); err != nil {
		return Tool{Name: d.Name, Unreadable: "the descriptor could not be read: " + err.Error()}
	}
	return Tool{
		Name:         d.Name,
		Title:        d.Title,
		Description:  d.Description,
		InputSchema:  rawjson.Message(d.InputSchema),
		OutputSchema: rawjson.Message(d.OutputSchema),
		Annotations:  rawjson.Message(d.Annotations),
		Meta:         rawjson.Message(d.Meta),
	}
}
