//go:build js && tinygo

package bridge

// stringerText reads no String method in a TinyGo build, where a panic
// traps before anything could describe it (internal/errs says why asking
// costs).
func stringerText(any) (string, bool) { return "", false }
