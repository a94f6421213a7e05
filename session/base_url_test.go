// Tests of the refusal of a BaseURL or MCPURL that carries a query, a
// fragment or credentials: the session appends paths to it and names it in
// errors, so a token written into it would be shown (and a query would
// swallow the paths). The refusal itself never repeats the secret.
package session_test

import (
	"testing"

	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBaseURLWithASecretIsRefused(t *testing.T) {
	cases := []struct {
		name    string
		opts    session.Options
		wantErr string // "" = accepted
	}{
		{"a path", session.Options{BaseURL: "/api"}, ""},
		{"an absolute URL", session.Options{BaseURL: "https://studio.example/api/"}, ""},
		{"an @ even in the path (refused rather than parsed)", session.Options{BaseURL: "https://studio.example/@SECRET1/api"}, "BaseURL has a query, a fragment or credentials"},
		{"a query", session.Options{BaseURL: "https://studio.example/api?token=SECRET1"}, "BaseURL has a query, a fragment or credentials"},
		{"a fragment", session.Options{BaseURL: "/api#SECRET1"}, "BaseURL has a query, a fragment or credentials"},
		{"credentials", session.Options{BaseURL: "https://user:SECRET1@studio.example/api"}, "BaseURL has a query, a fragment or credentials"},
		{"a token as user", session.Options{BaseURL: "http://SECRET1@127.0.0.1:8080/api"}, "BaseURL has a query, a fragment or credentials"},
		{"MCPURL credentials", session.Options{BaseURL: "/api", MCPURL: "https://u:SECRET1@mcp.example/mcp"}, "MCPURL has a query, a fragment or credentials"},
		{"MCPURL query", session.Options{BaseURL: "/api", MCPURL: "/mcp?key=SECRET1"}, "MCPURL has a query, a fragment or credentials"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := session.New(c.opts)
			if c.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.wantErr)
			assert.Contains(t, err.Error(), "auth option", "the error says where a token goes instead")
			assert.NotContains(t, err.Error(), "SECRET1", "the refusal never repeats the secret")
		})
	}
}
