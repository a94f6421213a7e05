// Tests of TrimSpace and KindName.

package jsonr

import "testing"

func TestTrimSpaceAndKindName(t *testing.T) {
	for _, tc := range []struct{ in, trimmed, kind string }{
		{"", "", "empty"},
		{" \t\r\n", "", "empty"},
		{" {\"a\":1} ", "{\"a\":1}", "an object"},
		{"\n[1]\t", "[1]", "an array"},
		{`"s"`, `"s"`, "a string"},
		{"-1", "-1", "a number"},
		{"7", "7", "a number"},
		{"true", "true", "a boolean"},
		{"false", "false", "a boolean"},
		{" null", "null", "null"},
		{"\u00a0x", "\u00a0x", "not JSON"}, // only JSON's four white-space bytes are trimmed
	} {
		if got := string(TrimSpace([]byte(tc.in))); got != tc.trimmed {
			t.Errorf("TrimSpace(%q) = %q, want %q", tc.in, got, tc.trimmed)
		}
		if got := KindName([]byte(tc.in)); got != tc.kind {
			t.Errorf("KindName(%q) = %q, want %q", tc.in, got, tc.kind)
		}
	}
}
