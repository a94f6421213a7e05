//go:build !js && !wasip1

// Tests of the field tables codecgen writes: each wire struct's decode
// and encode table against what encoding/json reads and writes for a value
// with every field set.

package wire_test

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/internal/jsonw"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/stretchr/testify/require"
)

// sampler fills values with a different non-zero value in every exported field, recursively,
// so that encoding/json writes every member and a table entry that reads one field's member
// into another field shows.
type sampler struct{ n int }

func (s *sampler) sample(t reflect.Type, depth int) reflect.Value {
	s.n++
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.String:
		v.SetString("s" + strconv.Itoa(s.n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(s.n))
	case reflect.Float64:
		v.SetFloat(float64(s.n) + 0.5)
	case reflect.Pointer:
		v.Set(s.sample(t.Elem(), depth).Addr())
	case reflect.Slice:
		if t == reflect.TypeOf(rawjson.Message(nil)) {
			v.SetBytes([]byte(`{"raw":[1,null]}`))
			break
		}
		v.Set(reflect.Append(reflect.MakeSlice(t, 0, 2), s.sample(t.Elem(), depth), s.sample(t.Elem(), depth)))
	case reflect.Map:
		v.Set(reflect.MakeMap(t))
		v.SetMapIndex(reflect.ValueOf("k"), s.sample(t.Elem(), depth))
	case reflect.Struct:
		if depth > 4 {
			break
		}
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
				v.Field(i).Set(s.sample(f.Type, depth+1))
			}
		}
	}
	return v
}

// TestFieldTablesMatchTheStructs decodes, for every wire struct whose decoder is a field table,
// a document that sets every member (written by encoding/json from a value with every field
// set), and requires the value encoding/json started from: a table entry with a wrong key,
// offset or kind fails here.
func TestFieldTablesMatchTheStructs(t *testing.T) {
	decoders := []func() (any, wire.Unmarshaler){
		func() (any, wire.Unmarshaler) { v := new(wire.Capabilities); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.Command); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.Draft); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.DraftCarrier); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.FetchResponse); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.Kit); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.MCPCallToolResult); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.MCPContentBlock); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.MCPDiscoverResult); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.MCPImplementation); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.MCPInitializeResult); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.MCPListToolsResult); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.MCPToolDescriptor); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.MCPToolErrorBody); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.MCPUnsupportedVersionData); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.PortOptions); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.ProviderInfo); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.RPCError); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.RPCMessage); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.SessionOptions); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.StreamEvent); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.StudioClassification); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.StudioMeta); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.ToolChoice); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.ToolContent); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.ToolPolicy); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.ToolSpec); return v, v },
		func() (any, wire.Unmarshaler) { v := new(wire.WatchOptions); return v, v },
	}
	for _, newValue := range decoders {
		got, dec := newValue()
		typ := reflect.TypeOf(got).Elem()
		t.Run(typ.Name(), func(t *testing.T) {
			want := (&sampler{}).sample(typ, 0)
			doc, err := json.Marshal(want.Interface())
			require.NoError(t, err)
			for i := 0; i < typ.NumField(); i++ {
				if f := typ.Field(i); f.IsExported() {
					key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
					require.Contains(t, string(doc), `"`+key+`":`, "the document sets %s", f.Name)
				}
			}
			require.NoError(t, wire.Unmarshal(doc, dec))
			require.Equal(t, want.Interface(), reflect.ValueOf(got).Elem().Interface(), "decoding %s", doc)
		})
	}
}

// TestEncodeTablesMatchTheStructs encodes, for every wire struct whose encoder is a field
// table, a value with every field set and the zero value, and requires what encoding/json
// writes for the same value (as JSON values: member order and number spelling aside): a table
// entry with a wrong key, offset, kind or omitempty fails here.
func TestEncodeTablesMatchTheStructs(t *testing.T) {
	values := []any{
		wire.ToolSpec{}, wire.ToolChoice{}, wire.ToolCall{}, wire.StreamEvent{}, wire.ChatRequest{}, wire.ChatMessage{},
		wire.Reply{}, wire.ErrorBody{}, wire.Draft{}, wire.StudioClassification{}, wire.FetchRequest{}, wire.MCPRequestMeta{}, wire.MCPMetaParams{}, wire.MCPListenParams{},
		wire.MCPListenFilter{}, wire.MCPListToolsParams{}, wire.MCPInitializeParams{}, wire.MCPInitializeMeta{},
		wire.MCPImplementation{}, wire.MCPCallToolParams{}, wire.PortWarning{}, wire.PortEvent{}, wire.HookHandler{},
		wire.ToolContent{}, wire.Rejection{}, wire.HookToolCall{}, wire.HookRequest{}, wire.HookAuth{},
	}
	for _, zero := range values {
		typ := reflect.TypeOf(zero)
		t.Run(typ.Name(), func(t *testing.T) {
			for _, v := range []reflect.Value{(&sampler{}).sample(typ, 0), reflect.Zero(typ)} {
				m, ok := v.Interface().(wire.Marshaler)
				require.True(t, ok)
				var w jsonw.Writer
				m.WriteJSON(&w)
				got, err := w.BuildBytes()
				require.NoError(t, err)
				want, err := json.Marshal(v.Interface())
				require.NoError(t, err)
				require.JSONEq(t, string(want), string(got))
			}
		})
	}
}
