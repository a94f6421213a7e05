// The redactor: it finds a secret (the upstream's API key) in text the
// proxy forwards to the page and replaces it with "[redacted]", whole or
// streamed in pieces.

package studioproxy

import (
	"strings"
	"unicode/utf8"

	"github.com/agentwasm/agentwasm/internal/openai"
)

// redactMark replaces each occurrence of the secret.
const redactMark = "[redacted]"

// redactMaxGap bounds the whitespace between two characters of the secret
// that still joins them into one occurrence: enough for a line break and
// the indentation of a wrapped error body, and a bound on how much text a
// stream holds back after what could be the start of the secret.
const redactMaxGap = 64

// A redactor finds a secret in text in each form an upstream may echo it
// in, and replaces each occurrence with "[redacted]":
//
//   - as it is;
//   - JSON-escaped: any of its characters as \uXXXX (a surrogate pair
//     above U+FFFF), '"', '\' and '/' as \" \\ \/, hex digits in either
//     case (text that is itself JSON, such as tool arguments or an error
//     body that is not the expected JSON);
//   - URL-escaped: any byte as %XX, either case, in a query (where '+' is
//     a space) or a path (where it is itself);
//   - with whitespace between its characters: spaces, tabs, CR and LF (and,
//     in the escaped forms, \n \r \t and '+'), up to redactMaxGap bytes
//     between two characters, as when an error body wraps the key across
//     lines. Whitespace in the secret itself is ignored the same way.
//
// Each form is searched in its own decoding of the text: as it is, JSON
// unescaped, and URL unescaped with '+' as a space and with '+' as itself.
// An occurrence in any of them is replaced from the first byte of its first
// character to the last byte of its last one, whitespace between included.
// Overlapping occurrences become one mark. Text holding none of the forms
// comes out unchanged.
//
// A nil *redactor (no secret) leaves all text as it is, at no cost. A
// redactor is immutable and safe for concurrent use; a redactStream over it
// is not.
type redactor struct {
	key  []byte // the secret without whitespace
	fail []int  // the KMP failure function of key
}

// newRedactor returns a redactor for secret, nil when secret holds nothing
// but whitespace.
func newRedactor(secret string) *redactor {
	var key []byte
	for i := 0; i < len(secret); i++ {
		if !redactSpace(secret[i]) {
			key = append(key, secret[i])
		}
	}
	if len(key) == 0 {
		return nil
	}
	fail := make([]int, len(key))
	for i, k := 1, 0; i < len(key); i++ {
		for k > 0 && key[i] != key[k] {
			k = fail[k-1]
		}
		if key[i] == key[k] {
			k++
		}
		fail[i] = k
	}
	return &redactor{key: key, fail: fail}
}

// String returns s with every occurrence of the secret replaced.
func (r *redactor) String(s string) string {
	if r == nil || s == "" {
		return s
	}
	out, _ := r.cut(s, true)
	return out
}

// redactStream redacts a text that arrives in pieces, where an occurrence
// of the secret may be split across two or more of them. Write returns
// what can be forwarded now; it holds back only a tail that could still
// become an occurrence (a prefix of the secret, perhaps escaped or followed
// by whitespace, or an escape cut short), and Flush returns that tail once
// the text is complete. No text is dropped: the pieces returned, joined,
// are the whole text with its occurrences replaced.
type redactStream struct {
	r       *redactor
	pending string // the held-back tail, not yet redacted
}

// Write adds text and returns the part of the text so far that can be
// forwarded, redacted; "" when all of it is held back.
func (s *redactStream) Write(text string) string {
	if s.r == nil {
		return text
	}
	out, hold := s.r.cut(s.pending+text, false)
	s.pending = hold
	return out
}

// Flush returns the held-back tail, redacted, and empties it; call it when
// the text is complete.
func (s *redactStream) Flush() string {
	if s.r == nil || s.pending == "" {
		return ""
	}
	out, _ := s.r.cut(s.pending, true)
	s.pending = ""
	return out
}

// redactPass is one decoding of the text the secret is searched in.
type redactPass int

const (
	redactPlain redactPass = iota // the text as it is
	redactJSON                    // the text JSON-unescaped
	redactURL                     // the text URL-unescaped, '+' as a space (a query)
	redactPath                    // the text URL-unescaped, '+' as itself (a path)
)

// redactRange is an occurrence: the bytes [start, end) of the text.
type redactRange struct{ start, end int }

// cut searches s. When final, it returns s redacted and "". Otherwise it
// returns the redacted part of s before the earliest byte that could start
// an occurrence not yet complete, and the rest of s, unredacted, to be
// searched again with what follows.
func (r *redactor) cut(s string, final bool) (out, rest string) {
	hold := len(s)
	var found []redactRange
	for pass := redactPlain; pass <= redactPath; pass++ {
		switch {
		case pass == redactJSON && strings.IndexByte(s, '\\') < 0,
			pass == redactURL && !strings.ContainsAny(s, "%+"),
			pass == redactPath && strings.IndexByte(s, '%') < 0:
			continue // this decoding is the text as it is
		}
		found, hold = r.search(s, pass, final, found, hold)
	}
	if len(found) == 0 && hold == len(s) {
		return s, ""
	}
	found = redactMerge(found)
	// An occurrence that the held-back tail starts inside of is held back
	// whole, so the next search sees all of it.
	for _, f := range found {
		if f.start < hold && hold < f.end {
			hold = f.start
		}
	}
	var b strings.Builder
	b.Grow(hold)
	at := 0
	for _, f := range found {
		if f.end > hold {
			break
		}
		b.WriteString(s[at:f.start])
		b.WriteString(redactMark)
		at = f.end
	}
	b.WriteString(s[at:hold])
	return b.String(), s[hold:]
}

// search finds the occurrences of the key in one decoding of s and adds
// them to found. It returns found and hold lowered to the start of a
// partial occurrence at the end of s (or of an escape cut short), unless
// final.
func (r *redactor) search(s string, pass redactPass, final bool, found []redactRange, hold int) ([]redactRange, int) {
	n := len(r.key)
	// starts[j%n] is where the unit that gave the j-th decoded byte (not
	// whitespace) starts; the last n of them are kept (on the stack for a
	// key of usual length).
	var small [96]int
	var starts []int
	if n <= len(small) {
		starts = small[:n]
	} else {
		starts = make([]int, n)
	}
	q, count, gap := 0, 0, 0 // key bytes matched, decoded bytes seen, whitespace bytes since the last one
	var buf [utf8.UTFMax]byte
	for i := 0; i < len(s); {
		dec, size, short := redactUnit(s[i:], pass, final, buf[:0])
		if short {
			// An escape the text ends inside of: it and any partial
			// occurrence before it wait for what follows.
			hold = min(hold, i)
			if q > 0 {
				hold = min(hold, starts[(count-q)%n])
			}
			return found, hold
		}
		if len(dec) == 1 && redactSpace(dec[0]) {
			if gap += size; gap > redactMaxGap {
				q = 0
			}
			i += size
			continue
		}
		gap = 0
		for _, c := range dec {
			for q > 0 && r.key[q] != c {
				q = r.fail[q-1]
			}
			if r.key[q] == c {
				q++
			}
			starts[count%n] = i
			count++
			if q == n {
				found = append(found, redactRange{starts[(count-n)%n], i + size})
				q = r.fail[n-1]
			}
		}
		i += size
	}
	if !final && q > 0 {
		hold = min(hold, starts[(count-q)%n])
	}
	return found, hold
}

// redactUnit decodes the unit at the start of s in pass: the bytes it
// stands for (appended to buf) and its length. Unless final, short reports
// an escape that s ends inside of, which may still become one; when final,
// such an escape is read as its first byte (a high surrogate without its
// low half as itself, which decodes to U+FFFD).
func redactUnit(s string, pass redactPass, final bool, buf []byte) (dec []byte, size int, short bool) {
	c := s[0]
	switch {
	case pass == redactJSON && c == '\\':
		if len(s) < 2 {
			if !final {
				return nil, 0, true
			}
			break
		}
		switch e := s[1]; e {
		case '"', '\\', '/':
			return append(buf, e), 2, false
		case 'b':
			return append(buf, '\b'), 2, false
		case 'f':
			return append(buf, '\f'), 2, false
		case 'n':
			return append(buf, '\n'), 2, false
		case 'r':
			return append(buf, '\r'), 2, false
		case 't':
			return append(buf, '\t'), 2, false
		case 'u':
			u, ok, cut := redactHex(s[2:], 4)
			if cut && !final {
				return nil, 0, true
			}
			if !ok {
				break
			}
			if u >= 0xD800 && u < 0xDC00 {
				// A high surrogate: its low half should follow as \uXXXX.
				rest := s[6:]
				if len(rest) < 6 && !final && redactEscapePrefix(rest) {
					return nil, 0, true
				}
				if len(rest) >= 6 && rest[0] == '\\' && rest[1] == 'u' {
					if lo, ok, _ := redactHex(rest[2:], 4); ok && lo >= 0xDC00 && lo < 0xE000 {
						return utf8.AppendRune(buf, rune(0x10000+(u-0xD800)<<10+(lo-0xDC00))), 12, false
					}
				}
			}
			return utf8.AppendRune(buf, rune(u)), 6, false
		}
	case (pass == redactURL || pass == redactPath) && c == '%':
		v, ok, cut := redactHex(s[1:], 2)
		if cut && !final {
			return nil, 0, true
		}
		if ok {
			return append(buf, byte(v)), 3, false
		}
	case pass == redactURL && c == '+':
		return append(buf, ' '), 1, false
	}
	return append(buf, c), 1, false
}

// redactEscapePrefix reports whether s, shorter than six bytes, is the
// start of a \uXXXX escape.
func redactEscapePrefix(s string) bool {
	if len(s) >= 1 && s[0] != '\\' || len(s) >= 2 && s[1] != 'u' {
		return false
	}
	if len(s) <= 2 {
		return true
	}
	_, _, cut := redactHex(s[2:], 4)
	return cut
}

// redactHex reads n hex digits, either case, from the start of s. short
// reports that s ends before n digits while all it has are hex digits.
func redactHex(s string, n int) (v uint32, ok, short bool) {
	for i := 0; i < n; i++ {
		if i == len(s) {
			return 0, false, true
		}
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint32(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint32(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | uint32(c-'A'+10)
		default:
			return 0, false, false
		}
	}
	return v, true, false
}

// redactSpace reports whether c is whitespace that may split the secret.
func redactSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// redactMerge sorts ranges by start and joins those that overlap or touch.
func redactMerge(rs []redactRange) []redactRange {
	if len(rs) < 2 {
		return rs
	}
	// Insertion sort: there are few, mostly in order already.
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].start < rs[j-1].start; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
	out := rs[:1]
	for _, f := range rs[1:] {
		last := &out[len(out)-1]
		if f.start <= last.end {
			last.end = max(last.end, f.end)
			continue
		}
		out = append(out, f)
	}
	return out
}

// The key's redactor is the translation's (internal/openai): a non-nil
// *redactor is an openai.Redactor.
var _ openai.Redactor = (*redactor)(nil)

// NewStream returns a stream that redacts one run of text arriving in
// pieces.
func (r *redactor) NewStream() openai.TextStream { return &redactStream{r: r} }
