// Decoding one event payload of the default transport, and what it
// allocates.

package session

import (
	"reflect"
	"testing"
)

// TestDecodeEventPlainText checks the text delta fast path of decodeEvent
// against the general decoder: the same event for every payload, and the
// fast path taken only where the text needs no decoding.
func TestDecodeEventPlainText(t *testing.T) {
	for _, c := range []struct {
		name, data string
		plain      bool // plainText takes it
	}{
		{"ascii", `{"text":"hello "}`, true},
		{"empty text", `{"text":""}`, true},
		{"non-ASCII", `{"text":"héllo wörld 日本 🙂"}`, true},
		{"U+2028 as is", "{\"text\":\"a\u2028b\"}", true},
		{"a lone closing brace", `{"text":"}"}`, true},
		{"invalid UTF-8", "{\"text\":\"a\xffb\"}", false},
		{"truncated UTF-8", "{\"text\":\"a\xe6\x97\"}", false},
		{"escaped newline", `{"text":"a\nb"}`, false},
		{"escaped quote", `{"text":"say \"hi\""}`, false},
		{"unicode escape", `{"text":"caf\u00e9"}`, false},
		{"raw tab", "{\"text\":\"a\tb\"}", false},
		{"space after the colon", `{"text": "a"}`, false},
		{"surrounding white space", " {\"text\":\"a\"}\n", false},
		{"another key after", `{"text":"a","model":"m"}`, false},
		{"another key before", `{"model":"m","text":"a"}`, false},
		{"a number", `{"text":5}`, false},
		{"unterminated", `{"text":"a`, false},
		{"not an object", `"text"`, false},
		{"just the head", `{"text":"`, false},
		{"with a type", `{"type":"textDelta","text":"a"}`, true},
		{"with another type", `{"type":"message_stop","text":"a"}`, true},
		{"with an empty type", `{"type":"","text":"a"}`, true},
		{"with a type that is escaped", `{"type":"text\u0044elta","text":"a"}`, false},
		{"with a type and a space", `{"type":"textDelta", "text":"a"}`, false},
		{"with a type that is a number", `{"type":5,"text":"a"}`, false},
		{"with a type after", `{"text":"a","type":"textDelta"}`, false},
		{"a type but no text", `{"type":"textDelta"}`, false},
		{"with a model first", `{"model":"m","text":"a"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, plain := plainText(c.data)
			if plain != c.plain {
				t.Errorf("plainText took it: %v, want %v", plain, c.plain)
			}
			want, wantOK := DecodeStreamEvent([]byte(c.data))
			if wantOK {
				want.Type = EventTextDelta
			}
			got, ok := decodeEvent(EventTextDelta, c.data)
			if ok != wantOK || !reflect.DeepEqual(got, want) {
				t.Errorf("decodeEvent = %+v, %v; the general decoder gives %+v, %v", got, ok, want, wantOK)
			}
		})
	}
}

// TestDecodeEventPlainTextAllocs checks that a plain text delta is decoded
// without allocating: its text is a substring of the frame's data.
func TestDecodeEventPlainTextAllocs(t *testing.T) {
	for _, data := range []string{`{"text":"token "}`, `{"type":"textDelta","text":"token "}`} {
		if n := testing.AllocsPerRun(100, func() { _, _ = decodeEvent(EventTextDelta, data) }); n != 0 {
			t.Errorf("decoding %s allocates %v times, want 0", data, n)
		}
	}
}

// FuzzDecodeEventPlainText: for any frame data, the text delta fast path
// gives what the general decoder gives (go test -fuzz FuzzDecodeEventPlainText
// ./session/).
func FuzzDecodeEventPlainText(f *testing.F) {
	for _, seed := range []string{`{"text":"hello "}`, `{"type":"textDelta","text":"a"}`, "{\"text\":\"a\xffb\"}",
		`{"text":"a\nb"}`, `{"text":"}"}`, `{"type":"","text":""}`, `{"text":"a","model":"m"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		want, wantOK := DecodeStreamEvent([]byte(data))
		if wantOK {
			want.Type = EventTextDelta
		}
		got, ok := decodeEvent(EventTextDelta, data)
		if ok != wantOK || !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeEvent(%q) = %+v, %v; the general decoder gives %+v, %v", data, got, ok, want, wantOK)
		}
	})
}
