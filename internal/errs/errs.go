// Package errs builds the module's error values and messages without fmt.
//
// fmt (with the reflection it brings) costs the wasm builds about 400 KB,
// so code compiled into the module writes its messages by concatenation
// (strconv.Quote for %q, strconv.Itoa for %d) and wraps errors with Wrap.
package errs

import (
	"errors"
	"strconv"
)

// New returns an error whose text is the concatenation of parts.
func New(parts ...string) error {
	return errors.New(join(parts))
}

// Wrap returns an error whose text is the concatenation of parts, ": " and
// err's text, and which unwraps to err (the fmt.Errorf("…: %w", err)
// pattern). A nil err gives New(parts...).
func Wrap(err error, parts ...string) error {
	if err == nil {
		return New(parts...)
	}
	return &wrapped{msg: join(parts) + ": " + err.Error(), err: err}
}

// WithSuffix returns an error whose text is err's followed by the
// concatenation of parts, and which unwraps to err (the
// fmt.Errorf("%w …", err) pattern).
func WithSuffix(err error, parts ...string) error {
	if err == nil {
		return New(parts...)
	}
	return &wrapped{msg: err.Error() + join(parts), err: err}
}

type wrapped struct {
	msg string
	err error
}

func (w *wrapped) Error() string { return w.msg }
func (w *wrapped) Unwrap() error { return w.err }

func join(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for _, p := range parts {
		b = append(b, p...)
	}
	return string(b)
}

// Text renders a value the way fmt's %v would for the kinds the module
// meets in messages (recovered panic values above all): strings, errors,
// values with a String method, booleans, integers and floats. Anything
// else is named by kind only. Text never panics: a value whose Error or
// String method panics (a nil pointer, say) reads "(a value whose text
// panicked)".
func Text(v any) (s string) {
	defer func() {
		if recover() != nil {
			s = "(a value whose text panicked)"
		}
	}()
	if t, ok := stringerText(v); ok {
		return t
	}
	switch x := v.(type) {
	case nil:
		return "<nil>"
	case string:
		return x
	case error:
		return x.Error()
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case int8:
		return strconv.FormatInt(int64(x), 10)
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint:
		return strconv.FormatUint(uint64(x), 10)
	case uint8:
		return strconv.FormatUint(uint64(x), 10)
	case uint16:
		return strconv.FormatUint(uint64(x), 10)
	case uint32:
		return strconv.FormatUint(uint64(x), 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return "(a value of a type without text)"
}

// Trunc returns s cut to at most n runes (fmt's %.Ns).
func Trunc(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
