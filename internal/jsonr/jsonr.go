// Package jsonr is the JSON reader of agentwasm: the strict,
// allocation-light lexer behind the generated codecs, and Value, which
// reads a whole document into dynamic values (map[string]any, []any,
// string, float64, bool, nil).
//
// internal/wire/internal/codecgen points the generated unmarshalers here instead
// of at easyjson's jlexer, which imports fmt, encoding/json and reflect
// (about 400 KB in a small wasm program; docs/SIZE.md has our figures). The Lexer follows jlexer's contract:
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
//
// The Lexer and Value scan strings, numbers and literals with the same
// code, and SkipRecursive and Raw check nested values with the same rules
// and messages as Value's walker (but without recursion: a bound on their
// nesting, Lexer.MaxDepth, is a bound on memory, not on the stack), so they
// decode and refuse alike. Their errors name the offending byte
// and what was wanted there ("unexpected ']', want a value"); where the
// caller drives the Lexer, a token out of place is a "syntax error" or
// "expected <what the caller asked for>".
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

// DefaultMaxDepth bounds the nesting SkipRecursive and Raw accept when
// Lexer.MaxDepth is zero (as encoding/json does).
const DefaultMaxDepth = 10000

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
	// MaxDepth bounds how deeply arrays and objects may nest in a value
	// SkipRecursive or Raw reads; zero means DefaultMaxDepth. Skipping
	// keeps one byte per open array or object, not a stack frame, so a
	// reader whose raw values are read again, each with its own bound,
	// may set it as high as len(Data).
	MaxDepth int

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
		// A number or a literal ends at white space or a delimiter.
		if end >= 0 && k != kindString && end < len(d) && !isEnd(d[end]) {
			l.fail(end, "unexpected "+describe(d, end)+" after the value")
			return
		}
		if end >= 0 {
			l.kind, l.pos = k, end
		}
		return
	}
	l.fail(l.pos, "unexpected end of input")
}

// skipSpace returns the offset of the first byte at or after i that is not
// white space.
func skipSpace(d []byte, i int) int {
	for i < len(d) && isSpace(d[i]) {
		i++
	}
	return i
}

// describe names the byte at i of d for an error message: 'x' when it is
// printable ASCII, byte 0xNN otherwise, or end of input.
func describe(d []byte, i int) string {
	if i >= len(d) {
		return "end of input"
	}
	c := d[i]
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return "byte 0x" + hex2(c)
}

// hex2 writes c as two lowercase hex digits.
func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
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
				l.fail(len(d), "unexpected end of input in a string escape")
				return -1
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
				continue
			case 'u':
				if hex4(d[i+2:]) < 0 {
					l.fail(i, "invalid \\u escape in a string")
					return -1
				}
				i += 6
				continue
			}
			l.fail(i+1, "invalid escape "+describe(d, i+1)+" in a string")
			return -1
		case c < 0x20:
			l.fail(i, "control character 0x"+hex2(c)+" in a string must be escaped")
			return -1
		case c >= utf8.RuneSelf:
			l.high = true
		}
		i++
	}
	l.fail(len(d), "unexpected end of input in a string")
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
	for j := 0; j < len(w); j++ {
		if i+j >= len(d) || d[i+j] != w[j] {
			l.fail(i+j, "unexpected "+describe(d, i+j)+" in literal "+w)
			return -1
		}
	}
	return i + len(w)
}

// scanNumber checks the number at i against the JSON grammar and returns
// the offset after it, or -1 after recording an error. What may follow
// the number is for the caller to check.
func (l *Lexer) scanNumber(i int) int {
	d := l.Data
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		i = digits(d, i+1)
	default:
		return l.badDigit(i, "")
	}
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			return l.badDigit(j, " after '.'")
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
			return l.badDigit(j, " in the exponent")
		}
		i = j
	}
	return i
}

// badDigit records that a number wants a digit at i, and returns -1.
func (l *Lexer) badDigit(i int, where string) int {
	l.fail(i, "unexpected "+describe(l.Data, i)+" in a number, want a digit"+where)
	return -1
}

// digits returns the offset of the first non-digit at or after i.
func digits(d []byte, i int) int {
	for i < len(d) && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	return i
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
		max := l.MaxDepth
		if max <= 0 {
			max = DefaultMaxDepth
		}
		if end := l.skip(l.start, max); end >= 0 {
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
	return l.text(raw)
}

// text returns the value of the string token raw, the bytes between the
// quotes of the string scanString checked last.
func (l *Lexer) text(raw []byte) string {
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
