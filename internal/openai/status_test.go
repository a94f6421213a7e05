// Tests of what a failed response means: the code of each status, the
// endpoint's own message quoted and redacted, and Retry-After.

package openai

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// keyRedactor hides one secret in whole strings, for the tests.
type keyRedactor string

func (k keyRedactor) String(s string) string { return strings.ReplaceAll(s, string(k), "[redacted]") }
func (k keyRedactor) NewStream() TextStream  { return plainText{} }

func TestStatusError(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	const key = "sk-SECRET-1"
	tests := []struct {
		name     string
		f        Failure
		code     string
		contains []string
	}{
		{"401 keyed", Failure{Status: 401, Body: []byte(`{"error":{"message":"Incorrect API key provided: ` + key + `"}}`), Keyed: true, Endpoint: "http://h/v1/chat/completions"},
			CodeUnauthorized, []string{"the endpoint at http://h/v1/chat/completions refused the API key (HTTP 401): Incorrect API key provided: [redacted]; check AGENTWASM_API_KEY"}},
		{"401 without a key", Failure{Status: 401}, CodeUnauthorized, []string{"the endpoint wants an API key (HTTP 401); set AGENTWASM_API_KEY"}},
		{"403", Failure{Status: 403, Body: []byte("nope"), Keyed: true}, CodeUnauthorized, []string{"HTTP 403", ": nope;"}},
		{"404", Failure{Status: 404, Body: []byte(`{"error":"model not found"}`)}, CodeNotFound, []string{"HTTP 404: model not found", "--upstream"}},
		{"429 with seconds", Failure{Status: 429, RetryAfter: "1", Now: now}, CodeRateLimited, []string{"retry after 1 second"}},
		{"429 with a date", Failure{Status: 429, RetryAfter: "Wed, 01 Jan 2025 12:00:30 GMT", Now: now}, CodeRateLimited, []string{"retry after 30 seconds"}},
		{"429 without", Failure{Status: 429, Body: []byte(`{"message":"slow down"}`)}, CodeRateLimited, []string{": slow down", "wait a little, then retry"}},
		{"500", Failure{Status: 500, Body: []byte(`{"detail":"boom"}`)}, CodeUnavailable, []string{"failed (HTTP 500): boom"}},
		{"400 long", Failure{Status: 400, Body: []byte(strings.Repeat("very long ", 100))}, CodeRejected, []string{"rejected the request (HTTP 400): very long", "…", "check --upstream and the model name"}},
		{"302", Failure{Status: 302}, CodeRejected, []string{"HTTP 302"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := StatusError(tt.f, testAdvice, keyRedactor(key))
			assert.Equal(t, tt.code, e.Code)
			for _, want := range tt.contains {
				assert.Contains(t, e.Message, want)
			}
			assert.NotContains(t, e.Message, key)
		})
	}
	// Without a redactor (a nil interface) the message is as it came.
	assert.Contains(t, StatusError(Failure{Status: 500, Body: []byte("x " + key)}, testAdvice, nil).Message, key)
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		h    string
		want int64
		ok   bool
	}{
		{"20", 20, true},
		{" 7 ", 7, true},
		{"-3", 0, true},
		{"Wed, 01 Jan 2025 12:00:30 GMT", 30, true},
		{"Wed, 01 Jan 2025 11:00:00 GMT", 0, true},
		{"", 0, false},
		{"soon", 0, false},
	}
	for _, tt := range tests {
		got, ok := RetryAfter(tt.h, now)
		assert.Equal(t, tt.ok, ok, tt.h)
		assert.Equal(t, tt.want, got, tt.h)
	}
}
