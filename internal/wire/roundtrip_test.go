// Round-trip fuzz test of the generated codecs over internal/jsonr.

package wire_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// FuzzRoundTrip checks the generated decoders over internal/jsonr: what
// they accept is valid JSON, and for the types with both codecs a decoded
// value re-encodes to JSON that decodes to the same value (nil and empty
// slices and maps counting as equal: omitempty drops both) and re-encodes
// to the same bytes.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{
		`{"op":"session.chat","session":1,"text":"hi","timeoutMs":5,"draft":{"draftId":"d","generation":2},"toolChoice":{"mode":"auto"}}`,
		`{"op":"x","options":{"a": [1, 2]},"graph":null,"args":"\u00e9"}`,
		`{"type":"textDelta","text":"x\ny","toolArguments":{"a":1},"promptTokens":3,"latencyMs":1.25e2}`,
		`{"type":"error","errorMessage":"\ud83d\ude00 \ud83d","latencyMs":-0}`,
		`{"name":"t","description":"d","inputSchema":{"type":"object"},"annotations":[]}`,
		`{"status":"ok","data":[1,{"b":null}],"deniedReason":""}`,
		`["a","b",null]`, `[{"a":1}, 2, "x", null]`, `null`, `{}`, `[]`, "{\"text\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var cmd wire.Command
		if wire.Unmarshal(data, &cmd) == nil && !json.Valid(data) {
			t.Fatalf("Command accepted invalid JSON %q", data)
		}
		roundTrip[wire.StreamEvent](t, data)
		roundTrip[wire.ToolSpec](t, data)
		roundTrip[wire.ToolContent](t, data)
		roundTrip[wire.Draft](t, data)
		roundTrip[wire.StringList](t, data)
		roundTrip[wire.RawList](t, data)
	})
}

// codec is a wire type with both generated codecs.
type codec[T any] interface {
	*T
	wire.Marshaler
	wire.Unmarshaler
}

func roundTrip[T any, P codec[T]](t *testing.T, data []byte) {
	t.Helper()
	var v1 T
	if wire.Unmarshal(data, P(&v1)) != nil {
		return
	}
	if !json.Valid(data) {
		t.Fatalf("%T accepted invalid JSON %q", v1, data)
	}
	enc1, err := wire.Marshal(P(&v1))
	if err != nil || !json.Valid(enc1) {
		t.Fatalf("%T: re-encoding %q gave %q (%v)", v1, data, enc1, err)
	}
	var v2 T
	if err := wire.Unmarshal(enc1, P(&v2)); err != nil {
		t.Fatalf("%T: decoding the re-encoding %q of %q: %v", v1, enc1, data, err)
	}
	if !sameValue(reflect.ValueOf(v1), reflect.ValueOf(v2)) {
		t.Fatalf("%T: %q decoded to %#v, its re-encoding %q to %#v", v1, data, v1, enc1, v2)
	}
	enc2, err := wire.Marshal(P(&v2))
	if err != nil || !bytes.Equal(enc1, enc2) {
		t.Fatalf("%T: encodings differ: %q then %q (%v)", v1, enc1, enc2, err)
	}
}

// sameValue is reflect.DeepEqual with nil and empty slices and maps equal.
func sameValue(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() || !sameValue(a.MapIndex(k), bv) {
				return false
			}
		}
		return true
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(a.Interface(), b.Interface())
	}
}
