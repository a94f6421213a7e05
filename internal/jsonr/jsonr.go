// Package jsonr is the JSON reader behind agentwasm's generated codecs: a
// strict, allocation-light lexer with the method set the easyjson generator
// decodes with.
//
// internal/wire/generate.sh points the generated unmarshalers here instead
// of at easyjson's jlexer, which imports fmt, encoding/json and reflect
// (about 400 KB in a small wasm program; README.md, Size, has our figures). The Lexer follows jlexer's contract:
// the caller says what it expects next (Delim, String, Int64, …, with
// WantColon and WantComma between members), the first error stops the
// lexer and later calls return zero values, and IsDelim reports true once
// an error is recorded so that decoding loops end.
//
// It is stricter than jlexer: numbers must follow the JSON grammar (no
// leading zeros, no bare "-" or "1."), every string token is checked for
// valid escapes and unescaped control characters even when it is skipped,
// and Skip, SkipRecursive and Raw accept only well-formed JSON. Invalid
// UTF-8 in a decoded string becomes U+FFFD, one per bad byte, as with
// encoding/json. Running out of input is an *Error, not io.EOF.
package jsonr

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Error is a syntax or type error at Offset of the input.
type Error struct {
	Offset int    // byte offset of the offending token or character
	Reason string // what is wrong
	Data   string // the input from Offset, cut to a few bytes
}

// Error returns "parse error: <reason> near offset <n> of '<data>'".
func (e *Error) Error() string {
	return "parse error: " + e.Reason + " near offset " + strconv.Itoa(e.Offset) + " of '" + e.Data + "'"
}

// maxContext bounds Error.Data.
const maxContext = 13

// maxDepth bounds the nesting Skip, SkipRecursive and Raw accept (as
// encoding/json does).
const maxDepth = 10000

type kind uint8

const (
	kindNone kind = iota // no token scanned
	kindDelim
	kindString
	kindNumber
	kindTrue
	kindFalse
	kindNull
)

// Lexer reads JSON tokens from Data. The zero value with Data set is ready.
type Lexer struct {
	Data []byte // the input

	start int  // offset of the current token
	pos   int  // offset of the first byte not scanned
	kind  kind // the current token; kindNone when it was consumed
	delim byte // the current token's delimiter, for kindDelim
	esc   bool // the current string token holds escapes
	high  bool // the current string token holds bytes >= 0x80

	first bool // the last delimiter opened an object or array
	sep   byte // ',' or ':' that must come before the next token, or 0
	err   error
}

// fail records the first error.
func (l *Lexer) fail(off int, reason string) {
	if l.err == nil {
		l.err = &Error{Offset: off, Reason: reason, Data: clip(l.Data, off)}
	}
}

// clip returns data from off, cut to maxContext bytes.
func clip(data []byte, off int) string {
	if off >= len(data) {
		return ""
	}
	if len(data)-off <= maxContext {
		return string(data[off:])
	}
	return string(data[off:off+maxContext-3]) + "..."
}

// expected records that the current token is not what the caller wanted.
func (l *Lexer) expected(what string) {
	if l.err == nil {
		l.err = &Error{Offset: l.start, Reason: "expected " + what, Data: clip(l.Data[l.start:l.pos], 0)}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// isEnd reports whether c may follow a number or a literal.
func isEnd(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', ':', '[', ']', '{', '}':
		return true
	}
	return false
}

// fetch scans the next token unless one is pending or an error is recorded.
func (l *Lexer) fetch() {
	if l.kind != kindNone || l.err != nil {
		return
	}
	d := l.Data
	for l.pos < len(d) {
		c := d[l.pos]
		if isSpace(c) {
			l.pos++
			continue
		}
		if c == ',' || c == ':' {
			if l.sep != c {
				l.fail(l.pos, "syntax error")
				return
			}
			l.sep = 0
			l.pos++
			continue
		}
		l.start = l.pos
		if c == '}' || c == ']' {
			if !l.first && l.sep != ',' {
				l.fail(l.pos, "syntax error")
				return
			}
			l.sep = 0
			l.kind, l.delim = kindDelim, c
			l.pos++
			return
		}
		if l.sep != 0 {
			l.fail(l.pos, "syntax error")
			return
		}
		var end int
		var k kind
		switch c {
		case '{', '[':
			l.first = true
			l.kind, l.delim = kindDelim, c
			l.pos++
			return
		case '"':
			end, k = l.scanString(l.pos), kindString
		case 't':
			end, k = l.scanWord(l.pos, "true"), kindTrue
		case 'f':
			end, k = l.scanWord(l.pos, "false"), kindFalse
		case 'n':
			end, k = l.scanWord(l.pos, "null"), kindNull
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			end, k = l.scanNumber(l.pos), kindNumber
		default:
			l.fail(l.pos, "syntax error")
			return
		}
		if end >= 0 {
			l.kind, l.pos = k, end
		}
		return
	}
	l.fail(l.pos, "unexpected end of input")
}

// scanString checks the string literal whose opening quote is at i and
// returns the offset after its closing quote, or -1 after recording an
// error. It notes in l.esc and l.high what decoding it needs.
func (l *Lexer) scanString(i int) int {
	d := l.Data
	l.esc, l.high = false, false
	for i++; i < len(d); {
		c := d[i]
		switch {
		case c == '"':
			return i + 1
		case c == '\\':
			l.esc = true
			if i+1 >= len(d) {
				break
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
				continue
			case 'u':
				if hex4(d[i+2:]) < 0 {
					l.fail(i, "invalid \\u escape in string")
					return -1
				}
				i += 6
				continue
			}
			l.fail(i, "invalid escape in string")
			return -1
		case c < 0x20:
			l.fail(i, "control character in string")
			return -1
		case c >= utf8.RuneSelf:
			l.high = true
		}
		i++
	}
	l.fail(len(d), "unterminated string")
	return -1
}

// hex4 returns the value of the four hex digits that start b, or -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// scanWord checks the literal w at i and returns the offset after it, or
// -1 after recording an error.
func (l *Lexer) scanWord(i int, w string) int {
	d := l.Data
	end := i + len(w)
	if end > len(d) || string(d[i:end]) != w || (end < len(d) && !isEnd(d[end])) {
		l.fail(i, "syntax error")
		return -1
	}
	return end
}

// scanNumber checks the number at i against the JSON grammar and returns
// the offset after it, or -1 after recording an error.
func (l *Lexer) scanNumber(i int) int {
	d := l.Data
	start := i
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		i = digits(d, i+1)
	default:
		l.fail(start, "invalid number")
		return -1
	}
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			l.fail(start, "invalid number")
			return -1
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			l.fail(start, "invalid number")
			return -1
		}
		i = j
	}
	if i < len(d) && !isEnd(d[i]) {
		l.fail(start, "invalid number")
		return -1
	}
	return i
}

// digits returns the offset of the first non-digit at or after i.
func digits(d []byte, i int) int {
	for i < len(d) && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	return i
}

// skipNested checks the object or array that opens at i and returns the
// offset after it, or -1 after recording an error.
func (l *Lexer) skipNested(i int) int {
	const (
		wantValue = iota
		wantValueOrClose
		wantKey
		wantKeyOrClose
		wantColon
		wantCommaOrClose
	)
	d := l.Data
	var buf [64]byte
	stack := buf[:0] // the closers of the open containers
	state := wantValue
	for {
		for i < len(d) && isSpace(d[i]) {
			i++
		}
		if i >= len(d) {
			l.fail(i, "unexpected end of input")
			return -1
		}
		c := d[i]
		closing := false
		switch state {
		case wantColon:
			if c != ':' {
				l.fail(i, "syntax error")
				return -1
			}
			i++
			state = wantValue
			continue
		case wantCommaOrClose:
			if c == ',' {
				i++
				state = wantValue
				if stack[len(stack)-1] == '}' {
					state = wantKey
				}
				continue
			}
			closing = true
		case wantKey, wantKeyOrClose:
			if state == wantKeyOrClose && c == '}' {
				closing = true
				break
			}
			if c != '"' {
				l.fail(i, "syntax error")
				return -1
			}
			if i = l.scanString(i); i < 0 {
				return -1
			}
			state = wantColon
			continue
		case wantValue, wantValueOrClose:
			if state == wantValueOrClose && c == ']' {
				closing = true
				break
			}
			switch c {
			case '{', '[':
				if len(stack) >= maxDepth {
					l.fail(i, "nesting too deep")
					return -1
				}
				if c == '{' {
					stack = append(stack, '}')
					state = wantKeyOrClose
				} else {
					stack = append(stack, ']')
					state = wantValueOrClose
				}
				i++
				continue
			case '"':
				i = l.scanString(i)
			case 't':
				i = l.scanWord(i, "true")
			case 'f':
				i = l.scanWord(i, "false")
			case 'n':
				i = l.scanWord(i, "null")
			case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
				i = l.scanNumber(i)
			default:
				l.fail(i, "syntax error")
				return -1
			}
			if i < 0 {
				return -1
			}
			state = wantCommaOrClose
			continue
		}
		if !closing || c != stack[len(stack)-1] {
			l.fail(i, "syntax error")
			return -1
		}
		stack = stack[:len(stack)-1]
		i++
		if len(stack) == 0 {
			return i
		}
		state = wantCommaOrClose
	}
}

// consume drops the current token.
func (l *Lexer) consume() { l.kind = kindNone }

// Ok reports whether no error has been recorded.
func (l *Lexer) Ok() bool { return l.err == nil }

// Error returns the first error recorded, or nil.
func (l *Lexer) Error() error { return l.err }

// AddError records err unless an error is recorded already.
func (l *Lexer) AddError(err error) {
	if l.err == nil {
		l.err = err
	}
}

// IsStart reports whether nothing has been scanned yet.
func (l *Lexer) IsStart() bool { return l.pos == 0 }

// WantComma requires a comma before the next token, unless that token
// closes the current object or array.
func (l *Lexer) WantComma() { l.sep, l.first = ',', false }

// WantColon requires a colon before the next token.
func (l *Lexer) WantColon() { l.sep, l.first = ':', false }

// Delim consumes the next token, which must be the delimiter c: one of
// '{', '}', '[' and ']'.
func (l *Lexer) Delim(c byte) {
	l.fetch()
	if l.err == nil && (l.kind != kindDelim || l.delim != c) {
		l.expected(string(rune(c)))
	}
	l.consume()
}

// IsDelim reports whether the next token is the delimiter c, or an error
// is recorded. It does not consume the token.
func (l *Lexer) IsDelim(c byte) bool {
	l.fetch()
	return l.err != nil || (l.kind == kindDelim && l.delim == c)
}

// IsNull reports whether the next token is null (and no error is
// recorded). It does not consume the token.
func (l *Lexer) IsNull() bool {
	l.fetch()
	return l.err == nil && l.kind == kindNull
}

// Skip consumes the next token. After IsNull it drops the null; on an
// opening delimiter it drops only the delimiter (SkipRecursive drops the
// whole value).
func (l *Lexer) Skip() {
	l.fetch()
	l.consume()
}

// SkipRecursive consumes the next value: a whole object or array, checked
// to be well-formed, or a single scalar token.
func (l *Lexer) SkipRecursive() {
	l.fetch()
	if l.err != nil {
		l.consume()
		return
	}
	if l.kind == kindDelim {
		if l.delim == '}' || l.delim == ']' {
			l.fail(l.start, "syntax error")
			l.consume()
			return
		}
		if end := l.skipNested(l.start); end >= 0 {
			l.pos = end
		} else {
			l.pos = len(l.Data)
		}
	}
	l.consume()
}

// Raw consumes the next value as SkipRecursive does and returns its bytes,
// a slice of Data, or nil after an error.
func (l *Lexer) Raw() []byte {
	l.SkipRecursive()
	if l.err != nil {
		return nil
	}
	return l.Data[l.start:l.pos]
}

// Consumed records an error if anything but white space follows the
// current position. Decoders call it after the top-level value.
func (l *Lexer) Consumed() {
	if l.err != nil {
		return
	}
	for ; l.pos < len(l.Data); l.pos++ {
		if c := l.Data[l.pos]; !isSpace(c) {
			l.fail(l.pos, "invalid character '"+string(rune(c))+"' after top-level value")
			return
		}
	}
}

// token returns the bytes of the current string token between its quotes,
// after checking that the next token is a string.
func (l *Lexer) token() ([]byte, bool) {
	l.fetch()
	if l.err != nil || l.kind != kindString {
		l.expected("string")
		l.consume()
		return nil, false
	}
	l.consume()
	return l.Data[l.start+1 : l.pos-1], true
}

// String consumes the next token, which must be a string, and returns its
// value.
func (l *Lexer) String() string {
	raw, ok := l.token()
	if !ok {
		return ""
	}
	if b, fresh := l.unquote(raw); fresh {
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	return string(raw)
}

// UnsafeFieldName consumes the next token, which must be a string (an
// object key), and returns its value without copying when it can: the
// result may share memory with Data, so it must not outlive it. With
// skipUnescape the raw text between the quotes is returned as is.
func (l *Lexer) UnsafeFieldName(skipUnescape bool) string {
	raw, ok := l.token()
	if !ok {
		return ""
	}
	if !skipUnescape {
		raw, _ = l.unquote(raw)
	}
	return unsafe.String(unsafe.SliceData(raw), len(raw))
}

// unquote decodes the string token raw (already checked by scanString).
// It returns raw itself when nothing needs decoding, else a new slice
// (fresh is true).
func (l *Lexer) unquote(raw []byte) (b []byte, fresh bool) {
	if !l.esc && (!l.high || utf8.Valid(raw)) {
		return raw, false
	}
	b = make([]byte, 0, len(raw)+8)
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			e := raw[i+1]
			i += 2
			switch e {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(raw[i:])
				i += 4
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
						r2 = hex4(raw[i+2:])
					}
					if r = utf16.DecodeRune(r, r2); r != utf8.RuneError {
						i += 6
					}
				}
				b = utf8.AppendRune(b, r)
			default: // '"', '\\', '/'
				b = append(b, e)
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, raw[i:i+n]...)
			}
			i += n
		}
	}
	return b, true
}

// number consumes the next token, which must be a number, and returns its
// text (sharing Data's memory: it must not be kept).
func (l *Lexer) number() (string, bool) {
	l.fetch()
	if l.err != nil || l.kind != kindNumber {
		l.expected("number")
		l.consume()
		return "", false
	}
	l.consume()
	b := l.Data[l.start:l.pos]
	return unsafe.String(unsafe.SliceData(b), len(b)), true
}

// badNumber records that the number s does not fit the wanted type.
func (l *Lexer) badNumber(s, what string, err error) {
	reason := "invalid syntax"
	if ne, ok := err.(*strconv.NumError); ok {
		reason = ne.Err.Error()
	}
	l.fail(l.start, "cannot read "+s+" as "+what+": "+reason)
}

// Int64 consumes the next token, which must be an integer that fits in an
// int64.
func (l *Lexer) Int64() int64 {
	s, ok := l.number()
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		l.badNumber(s, "int64", err)
		return 0
	}
	return n
}

// Int consumes the next token, which must be an integer that fits in an
// int.
func (l *Lexer) Int() int {
	s, ok := l.number()
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, strconv.IntSize)
	if err != nil {
		l.badNumber(s, "int", err)
		return 0
	}
	return int(n)
}

// Float64 consumes the next token, which must be a number within the range
// of a float64.
func (l *Lexer) Float64() float64 {
	s, ok := l.number()
	if !ok {
		return 0
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		l.badNumber(s, "float64", err)
		return 0
	}
	return f
}

// Bool consumes the next token, which must be true or false.
func (l *Lexer) Bool() bool {
	l.fetch()
	if l.err != nil || (l.kind != kindTrue && l.kind != kindFalse) {
		l.expected("bool")
		l.consume()
		return false
	}
	v := l.kind == kindTrue
	l.consume()
	return v
}
