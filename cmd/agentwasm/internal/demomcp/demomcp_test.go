//go:build !js && !wasip1

// Tests of the demo catalog's tools: drafts and their generations, the
// collaborator's edit that makes the first edit conflict, refusals with
// {code, message}, and the catalog growing (and telling listeners) when the
// first draft exists.

package demomcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/serve/mcpserver"
)

// callResult is a CallToolResult as the demo writes it.
type callResult struct {
	IsError           bool           `json:"isError"`
	StructuredContent map[string]any `json:"structuredContent"`
	Content           []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

func call(t *testing.T, s *Server, name, args string) callResult {
	t.Helper()
	var r callResult
	require.NoError(t, json.Unmarshal(s.CallTool(context.Background(), name, []byte(args)), &r))
	require.Len(t, r.Content, 1)
	var text map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.Content[0].Text), &text))
	assert.Equal(t, r.StructuredContent, text, "the text block carries the same object")
	return r
}

func toolNames(t *testing.T, s *Server) []string {
	t.Helper()
	var tools []struct {
		Name string         `json:"name"`
		Meta map[string]any `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal(s.ListTools(), &tools))
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	return names
}

func TestDemoDraftsAndGenerations(t *testing.T) {
	s := New()
	assert.NotContains(t, toolNames(t, s), "honua_studio_preview_draft")
	init := s.d.Handle(context.Background(), mcpserver.Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)})
	require.NotEmpty(t, init.SessionID, string(init.Body))
	assert.Contains(t, string(init.Body), `"listChanged":true`)
	l, e := s.d.ListenSession(init.SessionID)
	require.Nil(t, e)
	defer l.Close()

	created := call(t, s, "honua_studio_create_draft", `{"title":"Parks"}`)
	require.False(t, created.IsError)
	assert.Equal(t, map[string]any{"draftId": "d-1", "generation": float64(1)}, created.StructuredContent["draft"])
	assert.Contains(t, toolNames(t, s), "honua_studio_preview_draft", "the first draft adds a tool")
	msg, err := l.Next(context.Background())
	require.NoError(t, err)
	assert.Contains(t, string(msg), "notifications/tools/list_changed")

	steps := []struct {
		name, tool, args string
		code             string // the refusal's code ("" a success)
		generation       float64
	}{
		{"the collaborator moved the draft on", "honua_studio_add_layer", `{"draftId":"d-1","generation":1,"layer":"parks"}`, "failed_precondition", 0},
		{"reload", "honua_studio_get_draft", `{"draftId":"d-1"}`, "", 2},
		{"the edit at the current generation", "honua_studio_add_layer", `{"draftId":"d-1","generation":2,"layer":"parks"}`, "", 3},
		{"a style for the layer", "honua_studio_set_layer_style", `{"draftId":"d-1","generation":3,"layer":"parks","color":"green"}`, "", 4},
		{"a style for a layer not there", "honua_studio_set_layer_style", `{"draftId":"d-1","generation":4,"layer":"rivers","color":"blue"}`, "not_found", 0},
		{"an unknown layer", "honua_studio_add_layer", `{"draftId":"d-1","generation":4,"layer":"lava"}`, "invalid_argument", 0},
		{"no generation", "honua_studio_add_layer", `{"draftId":"d-1","layer":"rivers"}`, "invalid_argument", 0},
		{"no such draft", "honua_studio_add_layer", `{"draftId":"d-9","generation":1,"layer":"rivers"}`, "not_found", 0},
		{"arguments of the wrong type", "honua_studio_add_layer", `{"generation":"one"}`, "invalid_argument", 0},
		{"another family", "honua_admin_reset_tenant", `{}`, "permission_denied", 0},
		{"no such tool", "honua_studio_nope", `{}`, "not_found", 0},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			r := call(t, s, st.tool, st.args)
			if st.code != "" {
				require.True(t, r.IsError)
				assert.Equal(t, st.code, r.StructuredContent["code"])
				assert.NotEmpty(t, r.StructuredContent["message"])
				return
			}
			require.False(t, r.IsError, "%v", r.StructuredContent)
			assert.Equal(t, st.generation, r.StructuredContent["draft"].(map[string]any)["generation"])
		})
	}
	got := call(t, s, "honua_studio_get_draft", `{"draftId":"d-1"}`).StructuredContent
	assert.Equal(t, []any{"parks"}, got["layers"])
	assert.Equal(t, map[string]any{"parks": "green"}, got["styles"])
	assert.Equal(t, "Parks (renamed by a collaborator)", got["title"])
}
