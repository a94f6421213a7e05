// Tests that the errs helpers write what fmt wrote: Wrap as Errorf with %w,
// Text as %v, Trunc as %.Ns; and that Text never panics.

package errs_test

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/stretchr/testify/assert"
)

func TestWrapMatchesErrorf(t *testing.T) {
	err := errs.Wrap(io.ErrUnexpectedEOF, "reading ", "the body")
	assert.Equal(t, fmt.Errorf("reading the body: %w", io.ErrUnexpectedEOF).Error(), err.Error())
	assert.True(t, errors.Is(err, io.ErrUnexpectedEOF))
	assert.Equal(t, "no cause", errs.Wrap(nil, "no ", "cause").Error())
	suffixed := errs.WithSuffix(io.ErrUnexpectedEOF, " (HTTP ", "405", ")")
	assert.Equal(t, fmt.Errorf("%w (HTTP %d)", io.ErrUnexpectedEOF, 405).Error(), suffixed.Error())
	assert.True(t, errors.Is(suffixed, io.ErrUnexpectedEOF))
	assert.Equal(t, "abc", errs.New("a", "b", "c").Error())
}

func TestTextMatchesPercentV(t *testing.T) {
	for _, v := range []any{nil, "s", errors.New("e"), true, 3, int64(-4), uint8(5), 1.5, float32(0.25), time.Second, int8(1), int16(2), int32(3), uint(4), uint16(6), uint32(7), uint64(8)} {
		assert.Equal(t, fmt.Sprintf("%v", v), errs.Text(v), "%T", v)
	}
	assert.Equal(t, "(a value of a type without text)", errs.Text(struct{}{}))
}

func TestTruncMatchesPrecision(t *testing.T) {
	for _, s := range []string{"", "abc", "héllo wörld", "✓✓✓✓✓"} {
		for n := 0; n < 8; n++ {
			assert.Equal(t, fmt.Sprintf("%.*s", n, s), errs.Trunc(s, n))
		}
	}
}

type badText struct{}

func (*badText) Error() string { panic("no text") }

// A value whose text panics does not take Text down with it.
func TestTextNeverPanics(t *testing.T) {
	var nilPtr *badText
	assert.Equal(t, "(a value whose text panicked)", errs.Text(nilPtr))
	assert.Equal(t, "(a value whose text panicked)", errs.Text(&badText{}))
}
