// Results of the port: an ordered JSON object with a fixed key order, and
// the small object type used for its nested parts (AppendValue writes
// both).

package serve

// Obj is an ordered JSON object: its fields are written in the order they
// were set. Values are JSON values (see ParseValue), Obj, []Obj,
// []string, Condition, []Condition, int or int64.
type Obj []Field

// Field is one key and value of an Obj.
type Field struct {
	Key   string
	Value any
}

// Set returns o with key set to v, replacing an existing field in place or
// appending a new one. A nil v removes the field.
func (o Obj) Set(key string, v any) Obj {
	for i := range o {
		if o[i].Key == key {
			if v == nil {
				return append(o[:i:i], o[i+1:]...)
			}
			o[i].Value = v
			return o
		}
	}
	if v == nil {
		return o
	}
	return append(o, Field{key, v})
}

// Get returns the value of key.
func (o Obj) Get(key string) (any, bool) {
	for _, f := range o {
		if f.Key == key {
			return f.Value, true
		}
	}
	return nil, false
}

// AppendJSON appends o as compact JSON, its fields in order (AppendValue).
func (o Obj) AppendJSON(dst []byte) []byte { return AppendValue(dst, o) }

// jsonNull is an explicit JSON null (a nil value deletes a field).
var jsonNull = RawJSON("null")

// Result is the answer of one port call: a JSON object whose keys are
// written in a fixed order (the position and status first, details after,
// the position last), whatever order they were set in.
type Result struct {
	fields  Obj
	isError bool
}

// resultOrder ranks the keys a result may carry; unranked keys follow the
// ranked ones in the order they were set.
var resultOrder = func() map[string]int {
	keys := []string{
		"ok", "judgment", "reason", "why", "performed",
		"did", "does", "transitionId", "effectStatus", "settled", "outcome", "verifyHeld", "verifyFailed", "data", "error", "settleWith",
		"askId", "action", "instance", "step", "journey", "frame", "cancelled",
		"willDo", "because", "willUse", "recentSteps", "awaitingHuman", "differs",
		"evidence", "blockedBecause", "expects", "errors", "retriable",
		"priorTransitionId", "pendingTransitionId", "moved", "instances", "busy", "route",
		"readySteps", "laterSteps", "doneSteps",
		"facts", "brief", "actions", "journeys", "journeysElsewhere", "journeysElsewhereHint",
		"key", "value", "chain",
		"pending", "asks", "tools", "steps", "candidates", "note",
		"youAreOn", "version",
	}
	m := make(map[string]int, len(keys))
	for i, k := range keys {
		m[k] = i
	}
	return m
}()

func rankOf(key string) int {
	if r, ok := resultOrder[key]; ok {
		return r
	}
	return resultOrder["note"] // unknown keys go before the position
}

// newResult builds a result from key, value pairs.
func newResult(kv ...any) Result {
	var r Result
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		r = r.With(k, kv[i+1])
	}
	return r
}

// With returns a copy of r with key set to v (nil deletes the key). The
// copy keeps the fixed key order.
func (r Result) With(key string, v any) Result {
	out := Result{fields: make(Obj, 0, len(r.fields)+1), isError: r.isError}
	out.fields = append(out.fields, r.fields...)
	if _, ok := out.fields.Get(key); ok || v == nil {
		out.fields = out.fields.Set(key, v)
		return out
	}
	rk := rankOf(key)
	at := len(out.fields)
	for i, f := range out.fields {
		if rankOf(f.Key) > rk {
			at = i
			break
		}
	}
	out.fields = append(out.fields, Field{})
	copy(out.fields[at+1:], out.fields[at:])
	out.fields[at] = Field{key, v}
	return out
}

// withError marks r as an MCP error result.
func (r Result) withError() Result {
	r.isError = true
	return r
}

// JSON returns the result as compact JSON.
func (r Result) JSON() []byte {
	return r.fields.AppendJSON(make([]byte, 0, 256))
}

// String returns the result's JSON.
func (r Result) String() string { return string(r.JSON()) }

// Get returns the value of key.
func (r Result) Get(key string) (any, bool) { return r.fields.Get(key) }

// Keys returns the result's keys in the order they are written.
func (r Result) Keys() []string {
	out := make([]string, len(r.fields))
	for i, f := range r.fields {
		out[i] = f.Key
	}
	return out
}

// OK reports the result's ok field.
func (r Result) OK() bool {
	v, _ := r.Get("ok")
	b, _ := v.(bool)
	return b
}

// Judgment returns the result's judgment ("" when it has none).
func (r Result) Judgment() string { return r.str("judgment") }

// Reason returns the result's reason code ("" when it has none).
func (r Result) Reason() string { return r.str("reason") }

// TransitionID returns the result's transitionId ("" when it has none).
func (r Result) TransitionID() string { return r.str("transitionId") }

// IsError reports whether the result is an MCP error result: an unknown
// tool or a failure inside the port.
func (r Result) IsError() bool { return r.isError }

func (r Result) str(key string) string {
	v, _ := r.Get(key)
	s, _ := v.(string)
	return s
}
