// Tests of the absent-endpoint error: its text, errors.Is and Unwrap.

package absent

import (
	"errors"
	"testing"
)

func TestError(t *testing.T) {
	cause := errors.New("cause")
	for _, tc := range []struct {
		e    *Error
		text string
	}{
		{&Error{Endpoint: "capabilities", URL: "http://x/v1/studio/ai/capabilities", Status: 404},
			"session: the Studio AI proxy has no capabilities endpoint at http://x/v1/studio/ai/capabilities (HTTP 404); the session goes on without it and does not ask again"},
		{&Error{Endpoint: "MCP", URL: "http://x/mcp", Status: 405, Err: cause},
			"session: the Studio AI proxy has no MCP endpoint at http://x/mcp (HTTP 405); the session goes on without it and does not ask again until the tools are refreshed or the session reconnects (serve MCP there, or turn tool discovery off)"},
	} {
		if got := tc.e.Error(); got != tc.text {
			t.Errorf("Error() = %q, want %q", got, tc.text)
		}
		if !errors.Is(tc.e, Err) {
			t.Errorf("errors.Is(%v, Err) is false", tc.e)
		}
		if errors.Unwrap(tc.e) != tc.e.Err {
			t.Errorf("Unwrap returned %v, want %v", errors.Unwrap(tc.e), tc.e.Err)
		}
	}
	if Err.Error() != "session: the endpoint is absent" {
		t.Errorf("Err says %q", Err.Error())
	}
	if errors.Is(cause, Err) {
		t.Error("another error matches Err")
	}
	for status, want := range map[int]bool{404: true, 405: true, 200: false, 401: false, 500: false} {
		if Status(status) != want {
			t.Errorf("Status(%d) = %v", status, !want)
		}
	}
}
