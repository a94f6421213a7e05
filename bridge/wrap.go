// Error wrapping without fmt: bridge sits below internal/errs (it imports
// only internal/wire, and that only in the wasip1 build), and fmt costs the
// wasm builds about 400 KB, so its messages are built by concatenation.

package bridge

// wrapError is an error with its own text that unwraps to a cause (the
// fmt.Errorf("…%w…") pattern).
type wrapError struct {
	msg   string
	cause error
}

func (e *wrapError) Error() string { return e.msg }
func (e *wrapError) Unwrap() error { return e.cause }

// wrap returns an error reading prefix + ": " + err's text that unwraps to
// err.
func wrap(prefix string, err error) error {
	return &wrapError{msg: prefix + ": " + err.Error(), cause: err}
}
