package errs

import (
	"errors"
	"fmt"
	"testing"
)

type codedErr struct{ code string }

func (e *codedErr) Error() string     { return "coded " + e.code }
func (e *codedErr) ErrorCode() string { return e.code }

type valueErr struct{ n int }

func (e valueErr) Error() string { return "value" }

// asker answers As for a *codedErr target itself.
type asker struct{}

func (asker) Error() string { return "asker" }
func (asker) As(target any) bool {
	if p, ok := target.(**codedErr); ok {
		*p = &codedErr{code: "from As"}
		return true
	}
	return false
}

// As agrees with errors.As on every shape of tree: the error itself,
// wrapped once and twice, joined, a value type, an interface target, an
// As method, and no match.
func TestAsAgreesWithErrorsAs(t *testing.T) {
	coded := &codedErr{code: "c"}
	cases := []struct {
		name string
		err  error
	}{
		{"nil", nil},
		{"itself", coded},
		{"wrapped", fmt.Errorf("outer: %w", coded)},
		{"wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", coded))},
		{"joined, second", errors.Join(errors.New("first"), coded)},
		{"joined inside a wrap", fmt.Errorf("w: %w", errors.Join(errors.New("x"), valueErr{7}))},
		{"a value type", valueErr{3}},
		{"an As method", asker{}},
		{"no match", errors.New("plain")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got, want *codedErr
			if g, w := As(c.err, &got), errors.As(c.err, &want); g != w || (g && got.code != want.code) {
				t.Errorf("*codedErr: As = %v %v, errors.As = %v %v", g, got, w, want)
			}
			var gv, wv valueErr
			if g, w := As(c.err, &gv), errors.As(c.err, &wv); g != w || gv != wv {
				t.Errorf("valueErr: As = %v %v, errors.As = %v %v", g, gv, w, wv)
			}
			var gi, wi interface{ ErrorCode() string }
			if g, w := As(c.err, &gi), errors.As(c.err, &wi); g != w || (g && gi.ErrorCode() != wi.ErrorCode()) {
				t.Errorf("interface: As = %v, errors.As = %v", g, w)
			}
		})
	}
}
