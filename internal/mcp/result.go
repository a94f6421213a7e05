// Results both sides write: a tools/call result of one text block, and the
// data of an UnsupportedProtocolVersion error.

package mcp

import "github.com/agentwasm/agentwasm/internal/jsonw"

// ToolResult writes a tools/call result (CallToolResult) of one text
// block: {"content":[{"type":"text","text":text}]}, then structuredContent
// when structured (a JSON object) is not empty, then "isError":true when
// isError.
func ToolResult(text string, structured []byte, isError bool) []byte {
	flag := ""
	if isError {
		flag = `,"isError":true`
	}
	return []byte(`{"content":[{"type":"text","text":` + quote(text) + "}]" + member(`,"structuredContent":`, structured) + flag + "}")
}

// UnsupportedVersionData writes the data of an UnsupportedProtocolVersion
// error: {"supported":[…],"requested":requested}.
func UnsupportedVersionData(supported []string, requested string) []byte {
	return []byte(`{"supported":` + string(AppendStrings(nil, supported)) + `,"requested":` + quote(requested) + "}")
}

// AppendStrings appends ss to dst as a JSON array of strings.
func AppendStrings(dst []byte, ss []string) []byte {
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonw.AppendString(dst, s)
	}
	return append(dst, ']')
}
