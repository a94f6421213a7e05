//go:build !tinygo

package errs

// stringerText is Text's case for a value with a String method (an error
// is not one: Text reads its Error).
func stringerText(v any) (string, bool) {
	if _, isError := v.(error); isError {
		return "", false
	}
	if s, ok := v.(interface{ String() string }); ok {
		return s.String(), true
	}
	return "", false
}
