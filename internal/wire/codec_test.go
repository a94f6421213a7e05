// Tests of the codec helpers (codec.go) over the generated codecs: a
// command decoded, what an encoded reply omits and keeps, EncodeString and
// DecodeString, Valid against encoding/json, and fuzzing of the decoders
// the module runs on host input.

package wire_test

import (
	"encoding/json"
	"testing"

	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnmarshalCommand(t *testing.T) {
	cases := []struct {
		name, in string
		ok       bool
		want     wire.Command
	}{
		{"minimal", `{"op":"version"}`, true, wire.Command{Op: "version"}},
		{"white space around", " \n{\"op\":\"x\",\"session\":3}\t", true, wire.Command{Op: "x", Session: 3}},
		{"unknown fields skipped", `{"op":"x","later":{"a":[1,2]}}`, true, wire.Command{Op: "x"}},
		{"raw options kept", `{"op":"x","options":{"a": 1}}`, true, wire.Command{Op: "x", Options: rawjson.Message(`{"a": 1}`)}},
		{"null options", `{"op":"x","options":null}`, true, wire.Command{Op: "x"}},
		{"empty", ``, false, wire.Command{}},
		{"trailing data", `{"op":"x"} {}`, false, wire.Command{}},
		{"wrong type", `{"session":"one"}`, false, wire.Command{}},
		{"array", `[]`, false, wire.Command{}},
		{"truncated", `{"op":"x"`, false, wire.Command{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got wire.Command
			err := wire.Unmarshal([]byte(c.in), &got)
			if !c.ok {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestMarshalOmitsAndKeeps(t *testing.T) {
	b, err := wire.Marshal(&wire.Reply{OK: false, Messages: []wire.ChatMessage{}, Turn: rawjson.Message{}})
	require.NoError(t, err)
	assert.Equal(t, `{"ok":false}`, string(b), "ok is kept when false, empty omitempty members are left out")

	b, err = wire.Marshal(&wire.ToolCall{ID: "c1", Name: "n"})
	require.NoError(t, err)
	assert.Equal(t, `{"id":"c1","name":"n","arguments":null}`, string(b), "an absent raw value is null")

	b, err = wire.Marshal(&wire.ToolContent{Status: "ok", Data: rawjson.Message(`{"a":[1]}`)})
	require.NoError(t, err)
	assert.Equal(t, `{"status":"ok","data":{"a":[1]}}`, string(b), "raw values are kept as they are")
}

func TestStrings(t *testing.T) {
	for _, s := range []string{"", "plain", "quote \" \\ \n", "✓ \u2028"} {
		enc := wire.EncodeString(s)
		assert.True(t, json.Valid(enc))
		dec, err := wire.DecodeString(enc)
		require.NoError(t, err)
		assert.Equal(t, s, dec)
	}
	s, err := wire.DecodeString([]byte("null"))
	require.NoError(t, err)
	assert.Equal(t, "", s)
	for _, bad := range []string{``, `42`, `"open`, `"a" "b"`, `{}`} {
		_, err := wire.DecodeString([]byte(bad))
		assert.Error(t, err, bad)
	}
}

// FuzzUnmarshal feeds arbitrary bytes to the decoders the module runs on
// host input: they must never panic, and a stream event they accept
// re-encodes to valid JSON.
func FuzzUnmarshal(f *testing.F) {
	for _, s := range []string{`{"op":"session.chat","session":1,"text":"hi","timeoutMs":5}`,
		`{"op":"session.create","options":{"tools":[{"name":"a"}],"kit":{"execute":true}}}`,
		`{"status":200,"headers":{"a":"b"}}`, `{"type":"textDelta","text":"x","toolArguments":{"a":1}}`, `nul`, `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var cmd wire.Command
		_ = wire.Unmarshal(data, &cmd)
		var opts wire.SessionOptions
		_ = wire.Unmarshal(data, &opts)
		var head wire.FetchResponse
		_ = wire.Unmarshal(data, &head)
		var ev wire.StreamEvent
		if wire.Unmarshal(data, &ev) == nil {
			b, err := wire.Marshal(&ev)
			if err != nil || !json.Valid(b) {
				t.Fatalf("re-encoding %q gave %q (%v)", data, b, err)
			}
		}
		_, _ = wire.DecodeString(data)
	})
}

// Valid agrees with encoding/json.Valid.
func TestValid(t *testing.T) {
	for _, s := range []string{``, ` `, `{}`, ` {"a":[1,2,{"b":null}]} `, `{"a":1}{}`, `[1,]`, `"\u12"`, `01`, `-0.5e+3`, `tru`, `true`, `"x"`, `{"a" 1}`, `[`, `nul`, "\"\x01\""} {
		assert.Equal(t, json.Valid([]byte(s)), wire.Valid([]byte(s)), "%q", s)
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range []string{`{}`, `[1,{"a":"b"}]`, `01`, `"\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if json.Valid(b) != wire.Valid(b) {
			t.Fatalf("encoding/json.Valid %v, wire.Valid %v for %q", json.Valid(b), wire.Valid(b), b)
		}
	})
}
