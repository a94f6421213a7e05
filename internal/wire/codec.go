// Codec helpers over easyjson's lexer and writer. The easyjson root package
// is not imported anywhere: it pulls net/http into the wasm builds.

package wire

import (
	"errors"

	"github.com/mailru/easyjson/jlexer"
	"github.com/mailru/easyjson/jwriter"
)

// Marshaler is implemented by every generated wire type.
type Marshaler interface {
	MarshalEasyJSON(w *jwriter.Writer)
}

// Unmarshaler is implemented by pointers to every generated wire type.
type Unmarshaler interface {
	UnmarshalEasyJSON(l *jlexer.Lexer)
}

// Marshal encodes v as compact JSON.
func Marshal(v Marshaler) ([]byte, error) {
	var w jwriter.Writer
	v.MarshalEasyJSON(&w)
	return w.BuildBytes()
}

// Unmarshal decodes one JSON value from data into v. Anything but white
// space after the value is an error.
func Unmarshal(data []byte, v Unmarshaler) error {
	l := jlexer.Lexer{Data: data}
	v.UnmarshalEasyJSON(&l)
	l.Consumed()
	if err := l.Error(); err != nil {
		return err
	}
	if len(data) == 0 {
		return errors.New("wire: empty input, expected a JSON value")
	}
	return nil
}

// RawMessage is a JSON value kept as its bytes. Empty means absent: it
// encodes as null, and omitempty fields leave it out.
type RawMessage []byte

// MarshalEasyJSON writes m as is, or null when empty.
func (m RawMessage) MarshalEasyJSON(w *jwriter.Writer) {
	if len(m) == 0 {
		w.RawString("null")
		return
	}
	w.Raw(m, nil)
}

// UnmarshalEasyJSON copies the next JSON value's bytes into m.
func (m *RawMessage) UnmarshalEasyJSON(l *jlexer.Lexer) {
	*m = append((*m)[:0], l.Raw()...)
}

// IsDefined reports whether m holds a value; omitempty fields use it.
func (m RawMessage) IsDefined() bool { return len(m) > 0 }

// EncodeString returns s as a JSON string.
func EncodeString(s string) []byte {
	var w jwriter.Writer
	w.String(s)
	b, _ := w.BuildBytes()
	return b
}

// DecodeString decodes data, which must be one JSON string (or null, which
// gives ""). It avoids encoding/json, whose reflection costs the wasm
// modules most of a megabyte.
func DecodeString(data []byte) (string, error) {
	l := jlexer.Lexer{Data: data}
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
