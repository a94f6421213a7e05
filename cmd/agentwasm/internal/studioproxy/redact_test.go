// Tests of the redactor: every form of the secret is replaced, whole and
// streamed in pieces split anywhere, and text without it passes unchanged.

package studioproxy

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// redactKeys are the secrets of the tests: a usual key, and keys with
// characters JSON and URLs escape, one above U+FFFF, and one that overlaps
// itself. None holds '[' or ']' or lies inside "[redacted]", so the mark
// can never form one.
var redactKeys = []string{
	"sk-proj-Ab3dEf9_x",
	`sk-q"uo\te/sl+ash%`,
	"sk-ünï-😀-key",
	"abab",
}

// redactJSONEscape returns s as JSON text (without quotes) with every
// character escaped as \uXXXX when all, else as encoding/json escapes it.
func redactJSONEscape(s string, all, upper bool) string {
	if !all {
		b, _ := json.Marshal(s)
		return string(b[1 : len(b)-1])
	}
	var b strings.Builder
	format := `\u%04x`
	if upper {
		format = `\u%04X`
	}
	for _, r := range s {
		if r > 0xFFFF {
			r -= 0x10000
			fmt.Fprintf(&b, format+format, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			continue
		}
		fmt.Fprintf(&b, format, r)
	}
	return b.String()
}

// redactSpread returns s with sep between each two of its characters.
func redactSpread(s, sep string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// redactEach returns the characters of s each encoded by enc, joined with
// sep.
func redactEach(s, sep string, enc func(string) string) string {
	var parts []string
	for _, r := range s {
		parts = append(parts, enc(string(r)))
	}
	return strings.Join(parts, sep)
}

func TestRedactString(t *testing.T) {
	const key = "sk-proj-Ab3dEf9_x"
	tests := []struct {
		name, in, want string
	}{
		{"no key in the text", "a plain sentence, sk-proj and Ab3d", "a plain sentence, sk-proj and Ab3d"},
		{"empty", "", ""},
		{"as it is", "key=" + key + ".", "key=[redacted]."},
		{"twice", key + key + " " + key, "[redacted] [redacted]"},
		{"a prefix is not the key", "sk-proj-Ab3dEf9_", "sk-proj-Ab3dEf9_"},
		{"another case is not the key", strings.ToUpper(key), strings.ToUpper(key)},
		{"wrapped across lines", "invalid key sk-proj-Ab\n  3dEf9_x given", "invalid key [redacted] given"},
		{"CRLF and indentation", "sk-proj-\r\n\t\t  Ab3dEf9_x", "[redacted]"},
		{"a space between each character", redactSpread(key, " "), "[redacted]"},
		{"a tab between each character", redactSpread(key, "\t"), "[redacted]"},
		{"a gap as long as the bound", "sk-proj-" + strings.Repeat(" ", redactMaxGap) + "Ab3dEf9_x", "[redacted]"},
		{"a gap longer than the bound", "sk-proj-" + strings.Repeat(" ", redactMaxGap+1) + "Ab3dEf9_x", "sk-proj-" + strings.Repeat(" ", redactMaxGap+1) + "Ab3dEf9_x"},
		{"all \\u escaped", `{"k":"` + redactJSONEscape(key, true, false) + `"}`, `{"k":"[redacted]"}`},
		{"all \\u escaped, upper hex", redactJSONEscape(key, true, true), "[redacted]"},
		{"one character \\u escaped", `sk-proj-Ab3d\u0045f9_x`, "[redacted]"},
		{"escaped line break inside", `"sk-proj-Ab3d\nEf9_x"`, `"[redacted]"`},
		{"URL escaped", "?key=%73k-proj-%41b3dEf9_x&x=1", "?key=[redacted]&x=1"},
		{"URL escaped, lower hex", "%73%6b%2dproj-Ab3dEf9_x", "[redacted]"},
		{"an escape that is not one", `\u00zz sk-proj \%4`, `\u00zz sk-proj \%4`},
		{"a trailing backslash", `sk-proj-Ab3dEf9_x\`, `[redacted]\`},
	}
	r := newRedactor(key)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, r.String(tt.in))
		})
	}
}

// TestRedactKeyForms puts each key in each form an upstream may echo it
// in, between other text, and expects exactly that form replaced.
func TestRedactKeyForms(t *testing.T) {
	for _, key := range redactKeys {
		forms := map[string]string{
			"plain":              key,
			"JSON":               redactJSONEscape(key, false, false),
			"all \\u":            redactJSONEscape(key, true, false),
			"all \\u upper":      redactJSONEscape(key, true, true),
			"query escaped":      url.QueryEscape(key),
			"path escaped":       url.PathEscape(key),
			"spaced":             redactSpread(key, " "),
			"lines":              redactSpread(key, "\r\n    "),
			"JSON, escaped wrap": redactEach(key, `\n`, func(c string) string { return redactJSONEscape(c, false, false) }),
			"query, plus wrap":   redactEach(key, "+", url.QueryEscape),
		}
		for name, form := range forms {
			t.Run(key+"/"+name, func(t *testing.T) {
				r := newRedactor(key)
				assert.Equal(t, "<[redacted]>", r.String("<"+form+">"), "form %q", form)
				assert.False(t, redactOracle(key, r.String("say "+form+" and "+form)), "the key survived")
			})
		}
	}
}

func TestRedactOverlapping(t *testing.T) {
	r := newRedactor("abab")
	assert.Equal(t, "x[redacted]y", r.String("xabababy"), "two occurrences that overlap are one mark")
	assert.Equal(t, "[redacted]", r.String("abababab"))
	assert.Equal(t, "[redacted]a", r.String("ababa"), "a tail that is no key stays")
	assert.Equal(t, "[redacted]a", redactPieces(r, "aba", "ba"), "streamed, the same")
}

func TestRedactNoSecret(t *testing.T) {
	for _, secret := range []string{"", " ", "\r\n\t"} {
		r := newRedactor(secret)
		assert.Nil(t, r, "secret %q", secret)
		assert.Equal(t, "sk-anything", r.String("sk-anything"))
		s := &redactStream{r: r}
		assert.Equal(t, "sk-", s.Write("sk-"))
		assert.Equal(t, "", s.Flush())
	}
	// Whitespace in the secret is ignored like whitespace in the text.
	assert.Equal(t, "[redacted]", newRedactor("sk ab\ncd").String("skab cd"))
}

// TestRedactStreamHoldsBackOnlyWhatItMust writes pieces one by one and
// checks what each Write releases: everything that cannot be the start of
// the key at once, a possible start only until it is decided.
func TestRedactStreamHoldsBackOnlyWhatItMust(t *testing.T) {
	const key = "sk-proj-Ab3dEf9_x"
	type step struct{ write, want string }
	tests := []struct {
		name  string
		steps []step
		flush string
	}{
		{"plain text goes at once", []step{{"hello ", "hello "}, {"world", "world"}}, ""},
		{"the key split in two", []step{{"key sk-pr", "key "}, {"oj-Ab3dEf9_x!", "[redacted]!"}}, ""},
		{"the key split in many", []step{{"s", ""}, {"k", ""}, {"-proj-", ""}, {"Ab3d", ""}, {"Ef9_", ""}, {"x", "[redacted]"}, {" ok", " ok"}}, ""},
		{"a start that turns out not to be", []step{{"ask sk-pro", "ask "}, {"blem", "sk-problem"}}, ""},
		{"a start at the end is flushed", []step{{"see sk-proj-Ab", "see "}}, "sk-proj-Ab"},
		{"the key wrapped across pieces", []step{{"sk-proj-Ab\n", ""}, {"   3dEf9_x", "[redacted]"}}, ""},
		{"whitespace after a start is held", []step{{"sk-proj ", ""}, {"and more", "sk-proj and more"}}, ""},
		{"a long gap releases", []step{{"sk-proj-" + strings.Repeat(" ", redactMaxGap+1), "sk-proj-" + strings.Repeat(" ", redactMaxGap+1)}}, ""},
		{"an escape split in two", []step{{`x \u00`, "x "}, {`73k-proj-Ab3dEf9_x`, "[redacted]"}}, ""},
		{"an escape that ends the text", []step{{`x \u00`, "x "}}, `\u00`},
		{"a key then a new start", []step{{"sk-proj-Ab3dEf9_x sk-", "[redacted] "}, {"x", "sk-x"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &redactStream{r: newRedactor(key)}
			for i, st := range tt.steps {
				assert.Equal(t, st.want, s.Write(st.write), "write %d (%q)", i, st.write)
			}
			assert.Equal(t, tt.flush, s.Flush())
			assert.Equal(t, "", s.Flush(), "a second flush has nothing left")
		})
	}
}

// TestRedactStreamEverySplit streams each key form, between other text,
// cut at every pair of points: no piece and no join holds the key, no
// text is lost, and the result is the whole text's.
func TestRedactStreamEverySplit(t *testing.T) {
	for _, key := range redactKeys {
		r := newRedactor(key)
		for _, form := range []string{key, redactSpread(key, "\n "), redactJSONEscape(key, true, false), url.QueryEscape(key)} {
			text := "a " + form + " b " + form
			want := r.String(text)
			require.False(t, redactOracle(key, want))
			for i := 0; i <= len(text); i++ {
				for j := i; j <= len(text); j++ {
					got := redactPieces(r, text[:i], text[i:j], text[j:])
					if got != want {
						t.Fatalf("key %q cut at %d and %d of %q: got %q, want %q", key, i, j, text, got, want)
					}
				}
			}
		}
	}
}

// redactPieces streams pieces through a redactStream and joins what it
// releases.
func redactPieces(r *redactor, pieces ...string) string {
	s := &redactStream{r: r}
	var b strings.Builder
	for _, p := range pieces {
		b.WriteString(s.Write(p))
	}
	b.WriteString(s.Flush())
	return b.String()
}

// redactOracle reports whether text holds key in a form the redactor must
// replace. It is written the slow, plain way: decode the whole text as it
// is, JSON-unescaped, URL-unescaped and path-unescaped, and from every byte try to match
// the key's bytes, skipping up to redactMaxGap bytes of whitespace between
// two of them.
func redactOracle(secret, text string) bool {
	var key []byte
	for i := 0; i < len(secret); i++ {
		if !redactSpace(secret[i]) {
			key = append(key, secret[i])
		}
	}
	for pass := redactPlain; pass <= redactPath; pass++ {
		// Decode into units: the bytes each stands for and its size.
		type unit struct {
			b    []byte
			size int
		}
		var units []unit
		for i := 0; i < len(text); {
			dec, size, _ := redactUnit(text[i:], pass, true, nil)
			units = append(units, unit{dec, size})
			i += size
		}
		// Flatten into decoded bytes, whitespace marked with its size.
		type dbyte struct {
			c     byte
			space int // the source bytes of a whitespace unit, 0 otherwise
		}
		var seq []dbyte
		for _, u := range units {
			if len(u.b) == 1 && redactSpace(u.b[0]) {
				seq = append(seq, dbyte{u.b[0], u.size})
				continue
			}
			for _, c := range u.b {
				seq = append(seq, dbyte{c: c})
			}
		}
		for start := range seq {
			k, gap := 0, 0
			for i := start; i < len(seq) && k < len(key); i++ {
				if seq[i].space > 0 {
					if k == 0 {
						break
					}
					if gap += seq[i].space; gap > redactMaxGap {
						break
					}
					continue
				}
				if seq[i].c != key[k] {
					break
				}
				k, gap = k+1, 0
			}
			if k == len(key) {
				return true
			}
		}
	}
	return false
}

// FuzzRedact puts a key in a form the fuzzer picks between texts it picks,
// redacts the whole and streams it in pieces it picks, and asserts that
// the key survives in no form, that text holding no form of it comes out
// unchanged, and that the stream's result is the whole text's.
func FuzzRedact(f *testing.F) {
	f.Add(uint8(0), uint8(0), "before ", " after", uint8(3), uint8(9))
	f.Add(uint8(1), uint8(1), `{"error":"`, `"}`, uint8(1), uint8(20))
	f.Add(uint8(2), uint8(2), "", "", uint8(0), uint8(0))
	f.Add(uint8(3), uint8(3), "ab", "ba", uint8(2), uint8(2))
	f.Add(uint8(0), uint8(4), "sk-", "\\", uint8(5), uint8(5))
	f.Add(uint8(1), uint8(5), "%", "%7", uint8(7), uint8(1))
	f.Add(uint8(2), uint8(6), "\\ud83d", "\\u", uint8(4), uint8(6))
	f.Add(uint8(0), uint8(7), "no key here at all", "", uint8(3), uint8(3))
	f.Fuzz(func(t *testing.T, which, form uint8, before, after string, cut1, cut2 uint8) {
		key := redactKeys[int(which)%len(redactKeys)]
		var shown string
		switch form % 8 {
		case 0:
			shown = key
		case 1:
			shown = redactJSONEscape(key, false, false)
		case 2:
			shown = redactJSONEscape(key, true, form&8 != 0)
		case 3:
			shown = url.QueryEscape(key)
		case 4:
			shown = redactSpread(key, strings.Repeat(" \t\r\n"[form>>4&3:][:1], int(form>>6)+1))
		case 5:
			shown = redactEach(key, `\n`, func(c string) string { return redactJSONEscape(c, false, false) })
		case 6:
			shown = url.PathEscape(key)
		case 7:
			shown = "" // no key put in: only what the fuzzer wrote
		}
		text := before + shown + after
		r := newRedactor(key)
		whole := r.String(text)
		if redactOracle(key, whole) {
			t.Fatalf("key %q survived in %q (from %q)", key, whole, text)
		}
		if !redactOracle(key, text) && whole != text {
			t.Fatalf("text without the key %q changed: %q became %q", key, text, whole)
		}
		i := min(int(cut1), len(text))
		j := min(i+int(cut2), len(text))
		if got := redactPieces(r, text[:i], text[i:j], text[j:]); got != whole {
			t.Fatalf("key %q, %q streamed in pieces cut at %d and %d: got %q, want %q", key, text, i, j, got, whole)
		}
		if utf8.ValidString(text) && !utf8.ValidString(whole) {
			t.Fatalf("redacting valid UTF-8 %q gave invalid %q", text, whole)
		}
	})
}

// BenchmarkRedactStream streams a typical answer's text in token-sized
// pieces, with a key and without one.
func BenchmarkRedactStream(b *testing.B) {
	words := strings.Fields(strings.Repeat("The weather in Berlin is 21°C; see https://example.com/?q=a+b for more, or ask again. ", 20))
	for _, secret := range []string{"", "sk-proj-Ab3dEf9_xQ"} {
		b.Run("key="+strconv.FormatBool(secret != ""), func(b *testing.B) {
			r := newRedactor(secret)
			b.ReportAllocs()
			for b.Loop() {
				s := &redactStream{r: r}
				for _, w := range words {
					s.Write(w + " ")
				}
				s.Flush()
			}
		})
	}
}
