// The values of custom headers from tool parameters (2026-07-28 Streamable
// HTTP, "x-mcp-header"): a stateless-era tools/call mirrors the arguments
// a tool's inputSchema marks (mcp.ParamHeaders reads the marks) into
// Mcp-Param-{name} headers.

package mcpclient

import (
	"math"
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// maxSafeInteger is 2^53-1, the largest integer a header may carry.
const maxSafeInteger = 1<<53 - 1

// paramHeaderValues returns the Mcp-Param-{name} headers of a call with
// args: for each annotation whose path holds a string, an integer or a
// boolean in args, its value (Base64-encoded when not header-safe). Absent,
// null and other values send no header.
func paramHeaderValues(hs []mcp.ParamHeader, args []byte) map[string]string {
	if len(hs) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, h := range hs {
		v := mcp.ArgumentAt(args, h.Path)
		if len(v) == 0 {
			continue
		}
		var s string
		switch {
		case v[0] == '"':
			var err error
			if s, err = wire.DecodeString(v); err != nil {
				continue
			}
		case string(v) == "true" || string(v) == "false":
			s = string(v)
		case v[0] == '-' || (v[0] >= '0' && v[0] <= '9'):
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafeInteger {
				continue
			}
			s = strconv.FormatInt(int64(f), 10)
		default:
			continue // null, an object or an array
		}
		out[strings.ToLower(mcp.HeaderParamPrefix+h.Name)] = mcp.EncodeHeaderValue(s)
	}
	return out
}
