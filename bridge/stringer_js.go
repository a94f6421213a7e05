//go:build js && !tinygo

package bridge

// stringerText is panicText's case for a value with a String method.
func stringerText(v any) (string, bool) {
	if s, ok := v.(interface{ String() string }); ok {
		return s.String(), true
	}
	return "", false
}
