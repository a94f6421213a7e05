// Codec helpers over our own reader (internal/jsonr) and writer
// (internal/jsonw), which the generated codecs use (doc.go). Neither the
// easyjson root package (it pulls net/http into the wasm builds), nor its
// jwriter (its buffer pulls net), nor its jlexer (fmt, encoding/json,
// reflect) is linked.

package wire

import (
	"errors"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/jsonw"
)

// Marshaler is implemented by every wire type the module encodes: WriteJSON
// writes the value as JSON through w (for a struct, jsonw.Writer.Struct over
// its generated field table).
type Marshaler interface {
	WriteJSON(w *jsonw.Writer)
}

// Unmarshaler is implemented by pointers to every wire type the module
// decodes: ReadJSON reads one JSON value from l into the value (for a struct,
// jsonr.Lexer.Object over its generated field table), recording any error in
// l.
type Unmarshaler interface {
	ReadJSON(l *jsonr.Lexer)
}

// Marshal encodes v as compact JSON. It is generic rather than taking a
// Marshaler so that no type is converted to an interface for it: the linker
// then keeps each type's decoder only if something decodes that type.
func Marshal[T Marshaler](v T) ([]byte, error) {
	var w jsonw.Writer
	v.WriteJSON(&w)
	return w.BuildBytes()
}

// Unmarshal decodes one JSON value from data into v. Anything but white
// space after the value is an error. It is generic for the same reason as
// Marshal: a type only ever decoded keeps no encoder.
func Unmarshal[T Unmarshaler](data []byte, v T) error {
	return UnmarshalDepth(data, v, 0)
}

// UnmarshalDepth is Unmarshal with maxDepth bounding how deeply the values
// v keeps as raw bytes (its rawjson.Message members) may nest; zero means
// jsonr.DefaultMaxDepth. An envelope whose raw members are read again, each
// by a reader with its own bound, may pass len(data): then one member
// nested too deeply fails where it is read, not the envelope.
func UnmarshalDepth[T Unmarshaler](data []byte, v T, maxDepth int) error {
	l := jsonr.Lexer{Data: data, MaxDepth: maxDepth}
	v.ReadJSON(&l)
	l.Consumed()
	if err := l.Error(); err != nil {
		return err
	}
	if len(data) == 0 {
		return errors.New("wire: empty input, expected a JSON value")
	}
	return nil
}

// EncodeString returns s as a JSON string.
func EncodeString(s string) []byte {
	var w jsonw.Writer
	w.String(s)
	b, _ := w.BuildBytes()
	return b
}

// DecodeString decodes data, which must be one JSON string (or null, which
// gives ""). It avoids encoding/json, whose reflection costs the wasm
// modules most of a megabyte.
func DecodeString(data []byte) (string, error) {
	l := jsonr.Lexer{Data: data}
	var s string
	if l.IsNull() {
		l.Skip()
	} else {
		s = l.String()
	}
	l.Consumed()
	if err := l.Error(); err != nil {
		return "", err
	}
	return s, nil
}

// Valid reports whether data is exactly one JSON value (surrounding
// whitespace allowed), by the strict rules of the lexer that reads every
// wire type. It stands in for encoding/json.Valid, which the wasm builds
// would otherwise link.
func Valid(data []byte) bool {
	l := jsonr.Lexer{Data: data}
	l.SkipRecursive()
	l.Consumed()
	return l.Error() == nil
}
