package mcp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHeaderValues(t *testing.T) {
	for _, tc := range []struct {
		name, value, encoded string
	}{
		{"plain", "us-west1", "us-west1"},
		{"empty", "", ""},
		{"inner spaces and tabs", "a b\tc", "a b\tc"},
		{"leading space", " a", "=?base64?IGE=?="},
		{"trailing tab", "a\t", "=?base64?YQk=?="},
		{"non-ASCII", "Zürich", "=?base64?WsO8cmljaA==?="},
		{"a control character", "a\nb", "=?base64?YQpi?="},
		{"looks like the Base64 form", "=?base64?abc?=", "=?base64?PT9iYXNlNjQ/YWJjPz0=?="},
		{"too short for the form", "=?base64?=", "=?base64?="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc := EncodeHeaderValue(tc.value)
			assert.Equal(t, tc.encoded, enc)
			dec, err := DecodeHeaderValue(enc)
			require.NoError(t, err)
			assert.Equal(t, tc.value, dec, "the value survives the round trip")
		})
	}
}

func TestDecodeHeaderValueRefusesBadBase64(t *testing.T) {
	for _, v := range []string{"=?base64?!!!?=", "=?base64?YQ?=", "=?base64?YR==?="} {
		_, err := DecodeHeaderValue(v)
		assert.EqualError(t, err, "not valid Base64 inside =?base64?…?=", v)
	}
}
