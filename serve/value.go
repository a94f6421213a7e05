// Dynamic JSON values: a small strict parser (ParseValue), a deterministic
// compact encoder (AppendValue), deep equality (EqualValues) and deep copy
// (CloneValue). They replace encoding/json, which costs hundreds of KB in
// the wasm module.

package serve

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/jsonw"
)

// MaxValueDepth is how deeply arrays and objects may nest in a document
// ParseValue accepts.
const MaxValueDepth = 512

// walkDepthCap bounds the recursion of AppendValue, EqualValues and
// CloneValue over host-built values, which may be deeper than parsed ones
// or even cyclic. Past it, AppendValue writes null, EqualValues reports
// false and CloneValue shares instead of copying.
const walkDepthCap = 10000

// ParseValue parses exactly one JSON value (RFC 8259) from data.
// Whitespace around the value is allowed; anything else after it is an
// error. The result is one of nil, bool, float64, string, []any and
// map[string]any. Objects nest at most MaxValueDepth deep.
//
// Choices where the RFC leaves room: a duplicate object key keeps the last
// value; an escaped lone UTF-16 surrogate (such as "\ud800") and raw bytes
// that are not valid UTF-8 decode to U+FFFD; a number too large for a
// float64 is an error. Errors say the byte offset and what was wrong.
func ParseValue(data []byte) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, errs.New("serve: json: internal error: ", errs.Text(r))
		}
	}()
	p := parser{data: data}
	p.skipSpace()
	v, err = p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, p.errf("unexpected " + p.describe() + " after the value")
	}
	return v, nil
}

type parser struct {
	data []byte
	pos  int
}

func (p *parser) errf(msg string) error {
	return errs.New("serve: json: at byte ", strconv.Itoa(p.pos), ": ", msg)
}

// describe names the byte at the current position for an error message.
func (p *parser) describe() string {
	if p.pos >= len(p.data) {
		return "end of input"
	}
	c := p.data[p.pos]
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return "byte 0x" + hex2(c)
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	if p.pos >= len(p.data) {
		return nil, p.errf("unexpected end of input, want a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		return p.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	default:
		return nil, p.errf("unexpected " + p.describe() + ", want a value")
	}
}

func (p *parser) literal(word string) error {
	if len(p.data)-p.pos >= len(word) && string(p.data[p.pos:p.pos+len(word)]) == word {
		p.pos += len(word)
		return nil
	}
	for i := 0; i < len(word); i++ {
		if p.pos >= len(p.data) || p.data[p.pos] != word[i] {
			return p.errf("unexpected " + p.describe() + " in literal " + word)
		}
		p.pos++
	}
	return nil
}

func (p *parser) object(depth int) (any, error) {
	if depth > MaxValueDepth {
		return nil, p.errf("nesting deeper than " + strconv.Itoa(MaxValueDepth))
	}
	p.pos++ // '{'
	m := map[string]any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return m, nil
	}
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errf("unexpected " + p.describe() + ", want an object key")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errf("unexpected " + p.describe() + ", want ':' after an object key")
		}
		p.pos++
		p.skipSpace()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errf("unexpected end of input in an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case '}':
			p.pos++
			return m, nil
		default:
			return nil, p.errf("unexpected " + p.describe() + ", want ',' or '}' in an object")
		}
	}
}

func (p *parser) array(depth int) (any, error) {
	if depth > MaxValueDepth {
		return nil, p.errf("nesting deeper than " + strconv.Itoa(MaxValueDepth))
	}
	p.pos++ // '['
	a := []any{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return a, nil
	}
	for {
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errf("unexpected end of input in an array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.skipSpace()
		case ']':
			p.pos++
			return a, nil
		default:
			return nil, p.errf("unexpected " + p.describe() + ", want ',' or ']' in an array")
		}
	}
}

func (p *parser) number() (any, error) {
	start := p.pos
	d := p.data
	if p.pos < len(d) && d[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(d) && d[p.pos] == '0':
		p.pos++
	case p.pos < len(d) && d[p.pos] >= '1' && d[p.pos] <= '9':
		for p.pos < len(d) && d[p.pos] >= '0' && d[p.pos] <= '9' {
			p.pos++
		}
	default:
		return nil, p.errf("unexpected " + p.describe() + " in a number, want a digit")
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if p.pos >= len(d) || d[p.pos] < '0' || d[p.pos] > '9' {
			return nil, p.errf("unexpected " + p.describe() + " in a number, want a digit after '.'")
		}
		for p.pos < len(d) && d[p.pos] >= '0' && d[p.pos] <= '9' {
			p.pos++
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if p.pos >= len(d) || d[p.pos] < '0' || d[p.pos] > '9' {
			return nil, p.errf("unexpected " + p.describe() + " in a number, want a digit in the exponent")
		}
		for p.pos < len(d) && d[p.pos] >= '0' && d[p.pos] <= '9' {
			p.pos++
		}
	}
	f, err := strconv.ParseFloat(string(d[start:p.pos]), 64)
	if err != nil && (math.IsInf(f, 0) || math.IsNaN(f)) {
		p.pos = start
		return nil, p.errf("number " + string(d[start:start+min(len(d)-start, 40)]) + " is out of range")
	}
	return f, nil
}

// str parses a string starting at the opening quote.
func (p *parser) str() (string, error) {
	p.pos++ // '"'
	d := p.data
	// Fast path: no escapes and plain ASCII or valid UTF-8.
	start := p.pos
	for p.pos < len(d) {
		c := d[p.pos]
		if c == '"' {
			s := d[start:p.pos]
			p.pos++
			if utf8.Valid(s) {
				return string(s), nil
			}
			return string([]rune(string(s))), nil // invalid bytes become U+FFFD
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.pos++
	}
	buf := append([]byte(nil), d[start:p.pos]...)
	for {
		if p.pos >= len(d) {
			return "", p.errf("unexpected end of input in a string")
		}
		c := d[p.pos]
		switch {
		case c == '"':
			p.pos++
			if !utf8.Valid(buf) {
				return string([]rune(string(buf))), nil
			}
			return string(buf), nil
		case c < 0x20:
			return "", p.errf("control character 0x" + hex2(c) + " in a string must be escaped")
		case c != '\\':
			buf = append(buf, c)
			p.pos++
			continue
		}
		// An escape.
		if p.pos+1 >= len(d) {
			p.pos++
			return "", p.errf("unexpected end of input in a string escape")
		}
		e := d[p.pos+1]
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := hex4(d, p.pos+2)
			if !ok {
				return "", p.errf("invalid \\u escape in a string")
			}
			p.pos += 6
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if p.pos+1 < len(d) && d[p.pos] == '\\' && d[p.pos+1] == 'u' {
					r2, ok2 = hex4(d, p.pos+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
					r = dec
					p.pos += 6
				} else {
					r = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, r)
			continue
		default:
			p.pos++
			return "", p.errf("invalid escape " + p.describe() + " in a string")
		}
		p.pos += 2
	}
}

func hex4(d []byte, at int) (rune, bool) {
	if at+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// jsonAppender is implemented by values that encode themselves
// (Condition, for one); AppendValue defers to it.
type jsonAppender interface {
	AppendJSON(dst []byte) []byte
}

// AppendValue appends the compact JSON encoding of v to dst and returns
// the extended slice.
//
// It encodes nil, bool, float64, string, []any and map[string]any (and
// State), plus the Go integer types, float32, []string, map[string]string,
// json.RawMessage (copied as is; empty means null) and anything with an
// AppendJSON(dst []byte) []byte method. Any other type, NaN and the
// infinities encode as null; a nil slice or map encodes as [] or {}. Object keys are sorted, so the output is
// deterministic. A float that is an integer with magnitude below 1e21 is
// written without fraction or exponent.
//
// Strings are escaped like encoding/json, except that <, > and & are
// written raw: ", \ and control characters are escaped (\n, \r, \t, \b, \f
// short forms, \u00XX otherwise), U+2028 and U+2029 become \u2028 and
// \u2029, and bytes that are not valid UTF-8 become \ufffd.
func AppendValue(dst []byte, v any) []byte {
	return appendValue(dst, v, 0)
}

func appendValue(dst []byte, v any, depth int) []byte {
	if depth > walkDepthCap {
		return append(dst, "null"...)
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		if x {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case float64:
		return appendFloat(dst, x)
	case string:
		return appendString(dst, x)
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendValue(dst, e, depth+1)
		}
		return append(dst, ']')
	case map[string]any:
		return appendObject(dst, x, depth)
	case State:
		return appendObject(dst, x, depth)
	case json.RawMessage:
		if len(x) == 0 {
			return append(dst, "null"...)
		}
		return append(dst, x...)
	case int:
		return strconv.AppendInt(dst, int64(x), 10)
	case int8:
		return strconv.AppendInt(dst, int64(x), 10)
	case int16:
		return strconv.AppendInt(dst, int64(x), 10)
	case int32:
		return strconv.AppendInt(dst, int64(x), 10)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case uint:
		return strconv.AppendUint(dst, uint64(x), 10)
	case uint8:
		return strconv.AppendUint(dst, uint64(x), 10)
	case uint16:
		return strconv.AppendUint(dst, uint64(x), 10)
	case uint32:
		return strconv.AppendUint(dst, uint64(x), 10)
	case uint64:
		return strconv.AppendUint(dst, x, 10)
	case float32:
		return appendFloat(dst, float64(x))
	case []string:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, e)
		}
		return append(dst, ']')
	case map[string]string:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, k)
			dst = append(dst, ':')
			dst = appendString(dst, x[k])
		}
		return append(dst, '}')
	case jsonAppender:
		return x.AppendJSON(dst)
	default:
		return append(dst, "null"...)
	}
}

func appendObject(dst []byte, m map[string]any, depth int) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, k)
		dst = append(dst, ':')
		dst = appendValue(dst, m[k], depth+1)
	}
	return append(dst, '}')
}

func appendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	abs := math.Abs(f)
	if abs < 1e21 && (abs >= 1e-6 || abs == 0 || f == math.Trunc(f)) {
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	// Exponent form, with the exponent trimmed like JavaScript writes it
	// (1e+21, 1e-7).
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	if m := len(dst); m-n >= 4 && dst[m-4] == 'e' && dst[m-3] == '-' && dst[m-2] == '0' {
		dst[m-2] = dst[m-1]
		dst = dst[:m-1]
	}
	return dst
}

// appendString appends s as a JSON string (internal/jsonw's escaping,
// shared with every generated codec).
func appendString(dst []byte, s string) []byte { return jsonw.AppendString(dst, s) }

// numberOf reports v as a float64 when it is a JSON number (float64) or
// any Go integer or float type.
func numberOf(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case int16:
		return float64(x), true
	case int8:
		return float64(x), true
	case uint:
		return float64(x), true
	case uint64:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint16:
		return float64(x), true
	case uint8:
		return float64(x), true
	case float32:
		return float64(x), true
	}
	return 0, false
}

// objectOf reports v as a map when it is a JSON object (map[string]any or
// State).
func objectOf(v any) (map[string]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return x, true
	case State:
		return x, true
	}
	return nil, false
}

// arrayOf reports v as a slice when it is a JSON array ([]any, or
// []string, which is converted).
func arrayOf(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case []string:
		a := make([]any, len(x))
		for i, s := range x {
			a[i] = s
		}
		return a, true
	}
	return nil, false
}

// EqualValues reports whether a and b are the same JSON value: numbers
// compare by value whatever their Go type, arrays element by element,
// objects key by key (order does not matter). A json.RawMessage is parsed
// first; one that does not parse equals nothing.
func EqualValues(a, b any) bool {
	return equalValues(a, b, 0)
}

func equalValues(a, b any, depth int) bool {
	if depth > walkDepthCap {
		return false
	}
	if r, ok := a.(json.RawMessage); ok {
		v, err := ParseValue(r)
		if err != nil {
			return false
		}
		a = v
	}
	if r, ok := b.(json.RawMessage); ok {
		v, err := ParseValue(r)
		if err != nil {
			return false
		}
		b = v
	}
	if x, ok := numberOf(a); ok {
		y, ok := numberOf(b)
		return ok && x == y
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	}
	if x, ok := arrayOf(a); ok {
		y, ok := arrayOf(b)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalValues(x[i], y[i], depth+1) {
				return false
			}
		}
		return true
	}
	if x, ok := objectOf(a); ok {
		y, ok := objectOf(b)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equalValues(xv, yv, depth+1) {
				return false
			}
		}
		return true
	}
	if x, ok := a.(map[string]string); ok {
		y, ok := b.(map[string]string)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			if yv, ok := y[k]; !ok || xv != yv {
				return false
			}
		}
		return true
	}
	return false
}

// CloneValue returns a deep copy of v: maps (map[string]any, State,
// map[string]string), slices ([]any, []string) and json.RawMessage are
// copied; everything else is returned as is.
func CloneValue(v any) any {
	return cloneValue(v, 0)
}

func cloneValue(v any, depth int) any {
	if depth > walkDepthCap {
		return v
	}
	switch x := v.(type) {
	case []any:
		if x == nil {
			return x
		}
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = cloneValue(e, depth+1)
		}
		return c
	case map[string]any:
		if x == nil {
			return x
		}
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = cloneValue(e, depth+1)
		}
		return c
	case State:
		if x == nil {
			return x
		}
		c := make(State, len(x))
		for k, e := range x {
			c[k] = cloneValue(e, depth+1)
		}
		return c
	case []string:
		if x == nil {
			return x
		}
		c := make([]string, len(x))
		copy(c, x)
		return c
	case map[string]string:
		if x == nil {
			return x
		}
		c := make(map[string]string, len(x))
		for k, e := range x {
			c[k] = e
		}
		return c
	case json.RawMessage:
		if x == nil {
			return x
		}
		c := make(json.RawMessage, len(x))
		copy(c, x)
		return c
	}
	return v
}

// hex2 writes c as two lowercase hex digits (fmt's %02x of a byte).
func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}
