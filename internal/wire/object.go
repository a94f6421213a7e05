// JSON object editing without reflection: read an object's members in
// order, and write them back.

package wire

import (
	"errors"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/jsonw"
	"github.com/agentwasm/agentwasm/internal/rawjson"
)

// Field is one member of a JSON object.
type Field struct {
	Key   string
	Value rawjson.Message
}

// ObjectFields returns the members of the JSON object in data, in order.
func ObjectFields(data []byte) ([]Field, error) {
	l := jsonr.Lexer{Data: data}
	if l.IsNull() {
		return nil, errors.New("wire: null is not an object")
	}
	var out []Field
	l.Delim('{')
	for !l.IsDelim('}') {
		key := l.String()
		l.WantColon()
		val := append(rawjson.Message(nil), l.Raw()...)
		out = append(out, Field{Key: key, Value: val})
		l.WantComma()
	}
	l.Delim('}')
	l.Consumed()
	if err := l.Error(); err != nil {
		return nil, err
	}
	return out, nil
}

// SetField replaces the value of key, or appends it.
func SetField(fields []Field, key string, value rawjson.Message) []Field {
	for i := range fields {
		if fields[i].Key == key {
			fields[i].Value = value
			return fields
		}
	}
	return append(fields, Field{Key: key, Value: value})
}

// GetField returns the value of key, or nil.
func GetField(fields []Field, key string) rawjson.Message {
	for _, f := range fields {
		if f.Key == key {
			return f.Value
		}
	}
	return nil
}

// BuildObject writes the members as one compact JSON object.
func BuildObject(fields []Field) []byte {
	var w jsonw.Writer
	w.RawByte('{')
	for i, f := range fields {
		if i > 0 {
			w.RawByte(',')
		}
		w.String(f.Key)
		w.RawByte(':')
		w.Raw(f.Value, nil)
	}
	w.RawByte('}')
	b, _ := w.BuildBytes()
	return b
}
