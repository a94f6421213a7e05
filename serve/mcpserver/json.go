// JSON helpers of the dispatcher: checking that a body is one JSON value,
// building result objects, and telling objects and arrays.

package mcpserver

import (
	"strconv"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// checkJSON reports whether data is exactly one JSON value (internal/jsonr),
// with white space around it allowed. Its errors say the byte offset and
// what was wrong; their "serve: json:" prefix is the one the dispatcher's
// parse errors have always carried on the wire, kept so that its answers
// stay byte for byte the same.
func checkJSON(data []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errs.New("serve: json: internal error: ", errs.Text(r))
		}
	}()
	_, err = jsonr.Value(data)
	if e, ok := err.(*jsonr.Error); ok {
		return errs.New("serve: json: at byte ", strconv.Itoa(e.Offset), ": ", e.Reason)
	}
	return err
}

// buildObject writes key/value pairs (values are JSON bytes) as an object.
func buildObject(kv ...any) []byte {
	fields := make([]wire.Field, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		fields = append(fields, wire.Field{Key: kv[i].(string), Value: kv[i+1].([]byte)})
	}
	return wire.BuildObject(fields)
}

// isJSONObject reports whether b is one well-formed JSON object.
func isJSONObject(b []byte) bool {
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	_, err := wire.ObjectFields(b)
	return err == nil
}

// isJSONArray reports whether b is one well-formed JSON array.
func isJSONArray(b []byte) bool {
	if len(b) == 0 || b[0] != '[' {
		return false
	}
	var l wire.RawList
	return wire.Unmarshal(b, &l) == nil
}
