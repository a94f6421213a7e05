//go:build !js && !wasip1

// Tests of Reset: the drafts and the catalog back as they started, the
// listeners told, the collaborator's conflict and the list-changed moment
// happening again, and draft ids from before the reset answered plainly.

package demomcp

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/serve/mcpserver"
)

func TestResetRestoresTheStart(t *testing.T) {
	s := New()
	start := toolNames(t, s)
	init := s.d.Handle(context.Background(), mcpserver.Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)})
	require.NotEmpty(t, init.SessionID, string(init.Body))
	l, e := s.d.ListenSession(init.SessionID)
	require.Nil(t, e)
	defer l.Close()
	listChanged := func(why string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // generous: it is sent at once
		defer cancel()
		msg, err := l.Next(ctx)
		require.NoError(t, err, why)
		assert.Contains(t, string(msg), "notifications/tools/list_changed", why)
	}

	// A conversation: a draft (the catalog grows), a layer, a second draft.
	require.False(t, call(t, s, "honua_studio_create_draft", `{"title":"One"}`).IsError)
	listChanged("the first draft adds the preview tool")
	require.False(t, call(t, s, "honua_studio_add_layer", `{"draftId":"d-1","generation":2,"layer":"parks"}`).IsError)
	require.False(t, call(t, s, "honua_studio_create_draft", `{"title":"Two"}`).IsError)
	require.Contains(t, toolNames(t, s), "honua_studio_preview_draft")

	s.Reset()
	listChanged("the reset takes the preview tool away again")
	assert.Equal(t, start, toolNames(t, s), "the first catalog")
	drafts, bytes := s.stats()
	assert.Equal(t, 0, drafts)
	assert.Equal(t, 0, bytes)
	for _, id := range []string{"d-1", "d-2"} {
		r := call(t, s, "honua_studio_get_draft", `{"draftId":"`+id+`"}`)
		require.True(t, r.IsError, id)
		assert.Equal(t, "not_found", r.StructuredContent["code"])
		assert.Contains(t, r.StructuredContent["message"], "removed when the demo was reset", id)
		assert.Contains(t, r.StructuredContent["message"], "honua_studio_create_draft", "it says how to go on")
	}

	// The demo's moments happen again: a new draft (its id not reused), the
	// collaborator's conflict on the first edit, the catalog growing.
	created := call(t, s, "honua_studio_create_draft", `{"title":"Again"}`)
	require.False(t, created.IsError)
	assert.Equal(t, map[string]any{"draftId": "d-3", "generation": float64(1)}, created.StructuredContent["draft"])
	listChanged("the first draft after the reset adds the preview tool again")
	assert.Contains(t, toolNames(t, s), "honua_studio_preview_draft")
	conflict := call(t, s, "honua_studio_add_layer", `{"draftId":"d-3","generation":1,"layer":"schools"}`)
	require.True(t, conflict.IsError)
	assert.Equal(t, "failed_precondition", conflict.StructuredContent["code"])
	r := call(t, s, "honua_studio_get_draft", `{"draftId":"d-9"}`)
	assert.NotContains(t, r.StructuredContent["message"], "reset", "a draft never created is not called reset")
}

// Adding a layer the draft has changes nothing: the same generation, and
// added: false; a layer it lacks moves it on.
func TestAddingALayerTwice(t *testing.T) {
	s := New()
	require.False(t, call(t, s, "honua_studio_create_draft", `{"title":"T"}`).IsError)
	steps := []struct {
		layer      string
		generation float64 // the draft's generation after the call
		added      bool
	}{
		{"schools", 3, true},
		{"schools", 3, false},
		{"parks", 4, true},
		{"schools", 4, false},
	}
	gen := 2
	for _, st := range steps {
		r := call(t, s, "honua_studio_add_layer", `{"draftId":"d-1","generation":`+strconv.Itoa(gen)+`,"layer":"`+st.layer+`"}`)
		require.False(t, r.IsError, "%v", r.StructuredContent)
		assert.Equal(t, st.generation, r.StructuredContent["draft"].(map[string]any)["generation"], st.layer)
		assert.Equal(t, st.added, r.StructuredContent["added"], st.layer)
		gen = int(st.generation)
	}
	got := call(t, s, "honua_studio_get_draft", `{"draftId":"d-1"}`).StructuredContent
	assert.Equal(t, []any{"schools", "parks"}, got["layers"])
}

// Resets racing with new drafts leave the served catalog (what tools/list
// answers, as the dispatcher last read it) equal to the server's own, with
// the preview tool exactly when a draft is kept: listeners are never left
// with a catalog the server no longer has.
func TestResetRacingDrafts(t *testing.T) {
	s := New()
	init := s.d.Handle(context.Background(), mcpserver.Request{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)})
	require.NotEmpty(t, init.SessionID)
	served := func() string {
		r := s.d.Handle(context.Background(), mcpserver.Request{SessionID: init.SessionID, Body: []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)})
		var out struct {
			Result struct {
				Tools json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal(r.Body, &out), string(r.Body))
		return string(out.Result.Tools)
	}
	for round := range 20 {
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if (i+round)%2 == 0 {
					s.Reset()
				} else {
					s.CallTool(context.Background(), "honua_studio_create_draft", []byte(`{"title":"t"}`))
				}
			}()
		}
		wg.Wait()
		drafts, _ := s.stats()
		own := string(s.ListTools())
		assert.JSONEq(t, own, served(), "round %d: the served catalog is the server's", round)
		assert.Equal(t, drafts > 0, strings.Contains(own, "honua_studio_preview_draft"), "round %d: the preview tool with a kept draft only", round)
	}
}
