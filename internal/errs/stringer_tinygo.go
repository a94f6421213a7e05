//go:build tinygo

package errs

// stringerText reads no String method in a TinyGo build: there a panic
// traps, so Text never meets the panic values that carry one, and asking
// any value for a String method keeps every type's String method in the
// module (time.Time's alone is 7 KB).
func stringerText(any) (string, bool) { return "", false }
