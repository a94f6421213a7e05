//go:build !js && !wasip1

// Tests of what the demo server keeps: titles and colours past their
// length are refused with a readable tool error and nothing is kept; past
// the draft count or byte budget the draft left alone longest is dropped,
// its bytes leave the total and a later call naming it says so; the bounds
// hold under concurrent callers; refused huge titles leave no memory held;
// and a huge title sent through the MCP HTTP handler, in both eras, is
// refused without the server storing it.

package demomcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/serve/mcpserver"
)

// argsJSON encodes a tool's arguments.
func argsJSON(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// consistent checks the store's books: the byte total is the sum of the
// kept drafts' sizes, measured afresh, and both bounds hold.
func consistent(t *testing.T, s *Server) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	sum := 0
	for id, d := range s.drafts {
		assert.Equal(t, id, d.DraftID)
		assert.Equal(t, draftSize(d), d.size, "draft %s's recorded size", id)
		sum += draftSize(d)
	}
	assert.Equal(t, sum, s.bytes, "the byte total is the sum of the kept drafts")
	assert.LessOrEqual(t, len(s.drafts), s.limits.MaxDrafts)
	assert.LessOrEqual(t, s.bytes, s.limits.MaxBytes)
}

// kept returns the ids of the kept drafts, sorted by number.
func kept(s *Server) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for n := 1; n <= s.next; n++ {
		if _, ok := s.drafts["d-"+strconv.Itoa(n)]; ok {
			ids = append(ids, "d-"+strconv.Itoa(n))
		}
	}
	return ids
}

func TestDemoLimitsRefuseLongTitlesAndColours(t *testing.T) {
	cases := []struct {
		name   string
		limits Limits
		tool   string
		args   map[string]any
		code   string // "" accepted
		says   string // in the refusal's message
	}{
		{"a title at the default limit, in two-byte characters", Limits{}, "honua_studio_create_draft",
			map[string]any{"title": strings.Repeat("é", DefaultMaxTitleRunes)}, "", ""},
		{"a title one character past the default limit", Limits{}, "honua_studio_create_draft",
			map[string]any{"title": strings.Repeat("é", DefaultMaxTitleRunes+1)}, "invalid_argument", "at most 200 characters"},
		{"a 4 MB title", Limits{}, "honua_studio_create_draft",
			map[string]any{"title": strings.Repeat("x", 4_000_000)}, "invalid_argument", "the title is 4000000 characters long"},
		{"a title past a configured limit", Limits{MaxTitleRunes: 5}, "honua_studio_create_draft",
			map[string]any{"title": "Parks!"}, "invalid_argument", "at most 5 characters"},
		{"a colour at the default limit", Limits{}, "honua_studio_set_layer_style",
			map[string]any{"draftId": "d-1", "generation": 3, "layer": "parks", "color": strings.Repeat("g", DefaultMaxColorRunes)}, "", ""},
		{"a colour one character past the default limit", Limits{}, "honua_studio_set_layer_style",
			map[string]any{"draftId": "d-1", "generation": 3, "layer": "parks", "color": strings.Repeat("g", DefaultMaxColorRunes+1)}, "invalid_argument", "at most 64 characters"},
		{"a 1 MB colour", Limits{}, "honua_studio_set_layer_style",
			map[string]any{"draftId": "d-1", "generation": 3, "layer": "parks", "color": strings.Repeat("g", 1<<20)}, "invalid_argument", "shorten it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewWithLimits(c.limits)
			if c.tool != "honua_studio_create_draft" {
				// A draft with a parks layer at generation 3 to style.
				require.False(t, call(t, s, "honua_studio_create_draft", `{"title":"Parks"}`).IsError)
				require.False(t, call(t, s, "honua_studio_add_layer", `{"draftId":"d-1","generation":2,"layer":"parks"}`).IsError)
			}
			drafts, bytes := s.stats()
			r := call(t, s, c.tool, argsJSON(t, c.args))
			if c.code == "" {
				require.False(t, r.IsError, "%v", r.StructuredContent)
				consistent(t, s)
				return
			}
			require.True(t, r.IsError)
			assert.Equal(t, c.code, r.StructuredContent["code"])
			assert.Contains(t, r.StructuredContent["message"], c.says)
			d, b := s.stats()
			assert.Equal(t, drafts, d, "a refused call keeps no draft")
			assert.Equal(t, bytes, b, "a refused call keeps no bytes")
			consistent(t, s)
		})
	}
}

func TestDemoLimitsAdvertiseTheBounds(t *testing.T) {
	s := NewWithLimits(Limits{MaxTitleRunes: 40, MaxColorRunes: 12})
	var tools []struct {
		Name        string `json:"name"`
		InputSchema struct {
			Properties map[string]map[string]any `json:"properties"`
		} `json:"inputSchema"`
	}
	require.NoError(t, json.Unmarshal(s.ListTools(), &tools))
	bound := map[string]any{}
	for _, tl := range tools {
		switch tl.Name {
		case "honua_studio_create_draft":
			bound["title"] = tl.InputSchema.Properties["title"]["maxLength"]
		case "honua_studio_set_layer_style":
			bound["color"] = tl.InputSchema.Properties["color"]["maxLength"]
		}
	}
	assert.Equal(t, map[string]any{"title": float64(40), "color": float64(12)}, bound, "the schemas tell the model the limits")
}

func TestDemoLimitsDropTheDraftLeftAloneLongest(t *testing.T) {
	// Each draft titled "Tn" counts draftOverhead + len("d-n") + len("Tn (renamed by a collaborator)").
	size := func(n int) int {
		return draftSize(&draft{DraftID: "d-" + strconv.Itoa(n), Title: "T" + strconv.Itoa(n) + " (renamed by a collaborator)"})
	}
	type step struct{ tool, args string }
	create := func(n int) step { return step{"honua_studio_create_draft", `{"title":"T` + strconv.Itoa(n) + `"}`} }
	read := func(id string) step { return step{"honua_studio_get_draft", `{"draftId":"` + id + `"}`} }
	cases := []struct {
		name    string
		limits  Limits
		steps   []step
		kept    []string
		dropped []string // a call naming these is told they were dropped
	}{
		{"past the count, the oldest goes", Limits{MaxDrafts: 3},
			[]step{create(1), create(2), create(3), create(4), create(5)},
			[]string{"d-3", "d-4", "d-5"}, []string{"d-1", "d-2"}},
		{"a draft read since is kept, the one left alone goes", Limits{MaxDrafts: 3},
			[]step{create(1), create(2), create(3), read("d-1"), create(4)},
			[]string{"d-1", "d-3", "d-4"}, []string{"d-2"}},
		{"past the bytes, the oldest go until the new one fits", Limits{MaxBytes: 2*size(1) + size(1)/2},
			[]step{create(1), create(2), create(3)},
			[]string{"d-2", "d-3"}, []string{"d-1"}},
		{"the default bounds: 50 drafts", Limits{},
			func() []step {
				var st []step
				for n := 1; n <= 120; n++ {
					st = append(st, create(n))
				}
				return st
			}(),
			func() []string {
				var ids []string
				for n := 71; n <= 120; n++ {
					ids = append(ids, "d-"+strconv.Itoa(n))
				}
				return ids
			}(), []string{"d-1", "d-70"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewWithLimits(c.limits)
			for _, st := range c.steps {
				require.False(t, call(t, s, st.tool, st.args).IsError, "%s %s", st.tool, st.args)
				consistent(t, s)
			}
			assert.Equal(t, c.kept, kept(s))
			drafts, bytes := s.stats()
			assert.Equal(t, len(c.kept), drafts)
			want := 0
			for _, id := range c.kept {
				n, _ := strconv.Atoi(strings.TrimPrefix(id, "d-"))
				want += size(n)
			}
			assert.Equal(t, want, bytes, "the dropped drafts' bytes left the total")
			for _, id := range c.dropped {
				r := call(t, s, "honua_studio_get_draft", `{"draftId":"`+id+`"}`)
				require.True(t, r.IsError)
				assert.Equal(t, "not_found", r.StructuredContent["code"])
				assert.Contains(t, r.StructuredContent["message"], "was dropped")
				assert.Contains(t, r.StructuredContent["message"], "create a new one")
			}
			r := call(t, s, "honua_studio_get_draft", `{"draftId":"d-999"}`)
			assert.NotContains(t, r.StructuredContent["message"], "dropped", "a draft never created is not called dropped")
		})
	}
}

func TestDemoLimitsEditsWithinTheBytes(t *testing.T) {
	base := draftSize(&draft{DraftID: "d-1", Title: "A (renamed by a collaborator)"})
	color := strings.Repeat("c", 60)
	styled := base + len("parks") + len("parks") + len(color) // the layer, then its style
	cases := []struct {
		name    string
		limits  Limits
		code    string   // the style edit's refusal, "" accepted
		kept    []string // after the edit
		comment string
	}{
		{"room for both", Limits{MaxBytes: 10 * styled}, "", []string{"d-1", "d-2"}, "nothing is dropped"},
		{"the edit drops the other draft", Limits{MaxBytes: styled + base - 1}, "", []string{"d-2"}, "d-1, left alone longest, goes"},
		// Creating d-2 already dropped d-1 here; the refused edit drops nothing more.
		{"the edit cannot fit at all", Limits{MaxBytes: styled - 1}, "resource_exhausted", []string{"d-2"}, "nothing is dropped for a refused edit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewWithLimits(c.limits)
			require.False(t, call(t, s, "honua_studio_create_draft", `{"title":"A"}`).IsError)
			require.False(t, call(t, s, "honua_studio_create_draft", `{"title":"B"}`).IsError)
			require.False(t, call(t, s, "honua_studio_add_layer", `{"draftId":"d-2","generation":2,"layer":"parks"}`).IsError)
			before := kept(s)
			_, bytesBefore := s.stats()
			r := call(t, s, "honua_studio_set_layer_style", argsJSON(t, map[string]any{"draftId": "d-2", "generation": 3, "layer": "parks", "color": color}))
			consistent(t, s)
			assert.Equal(t, c.kept, kept(s), c.comment)
			if c.code != "" {
				require.True(t, r.IsError)
				assert.Equal(t, c.code, r.StructuredContent["code"])
				assert.Contains(t, r.StructuredContent["message"], "at most "+strconv.Itoa(c.limits.MaxBytes)+" bytes")
				assert.Equal(t, before, kept(s))
				_, b := s.stats()
				assert.Equal(t, bytesBefore, b)
				got := call(t, s, "honua_studio_get_draft", `{"draftId":"d-2"}`).StructuredContent
				assert.Nil(t, got["styles"], "the refused edit left the draft as it was")
				assert.Equal(t, float64(3), got["draft"].(map[string]any)["generation"])
				return
			}
			require.False(t, r.IsError, "%v", r.StructuredContent)
			assert.Equal(t, float64(4), r.StructuredContent["draft"].(map[string]any)["generation"])
		})
	}
	t.Run("a draft too large on its own is not created", func(t *testing.T) {
		s := NewWithLimits(Limits{MaxBytes: base - 1})
		r := call(t, s, "honua_studio_create_draft", `{"title":"A"}`)
		require.True(t, r.IsError)
		assert.Equal(t, "resource_exhausted", r.StructuredContent["code"])
		drafts, bytes := s.stats()
		assert.Equal(t, [2]int{0, 0}, [2]int{drafts, bytes})
		assert.NotContains(t, toolNames(t, s), "honua_studio_preview_draft", "no draft was created")
	})
}

func TestDemoLimitsHoldUnderConcurrentCallers(t *testing.T) {
	s := NewWithLimits(Limits{MaxDrafts: 7, MaxBytes: 4096})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				var r callResult
				_ = json.Unmarshal(s.CallTool(context.Background(), "honua_studio_create_draft", []byte(`{"title":"w`+strconv.Itoa(w)+`-`+strconv.Itoa(i)+`"}`)), &r)
				if id, _ := r.StructuredContent["draft"].(map[string]any)["draftId"].(string); id != "" {
					s.CallTool(context.Background(), "honua_studio_add_layer", []byte(`{"draftId":"`+id+`","generation":2,"layer":"rivers"}`))
					s.CallTool(context.Background(), "honua_studio_set_layer_style", []byte(`{"draftId":"`+id+`","generation":3,"layer":"rivers","color":"blue"}`))
				}
			}
		}()
	}
	wg.Wait()
	consistent(t, s)
	drafts, _ := s.stats()
	assert.Equal(t, 7, drafts)
}

func TestDemoLimitsRefusedTitlesHoldNoMemory(t *testing.T) {
	// The scenario: 80 drafts with 4 MB titles held 650 MB. Here
	// 80 calls with 256 KiB titles are refused, and after a collection the
	// heap holds nothing of them.
	s := New()
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	args := []byte(`{"title":"` + strings.Repeat("m", 256<<10) + `"}`)
	before := heap()
	for range 80 {
		var r callResult
		require.NoError(t, json.Unmarshal(s.CallTool(context.Background(), "honua_studio_create_draft", args), &r))
		require.True(t, r.IsError)
	}
	after := heap()
	drafts, bytes := s.stats()
	assert.Equal(t, [2]int{0, 0}, [2]int{drafts, bytes})
	// 20 MiB would stay if the titles were kept; allow generous slack for the runtime.
	assert.Less(t, int64(after)-int64(before), int64(8<<20), "heap grew from %d to %d bytes", before, after)
}

// httpPost sends one JSON-RPC POST to the handler; kv are extra headers.
func httpPost(t *testing.T, url, body string, kv ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(b)
}

func TestDemoLimitsHugeTitleThroughTheHTTPHandler(t *testing.T) {
	huge := strings.Repeat("t", 3<<20) // under the handler's 4 MiB body cap: the tool sees it
	const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	eras := []struct {
		name string
		// send calls the tool with the title's JSON and returns the status and body.
		send func(t *testing.T, url, title string) (int, string)
	}{
		{"session era", func(t *testing.T, url, title string) (int, string) {
			status, h, body := httpPost(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			require.Equal(t, 200, status, body)
			sid := h.Get("Mcp-Session-Id")
			require.NotEmpty(t, sid)
			status, body = func() (int, string) {
				s, _, b := httpPost(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"honua_studio_create_draft","arguments":{"title":`+title+`}}}`,
					"Mcp-Session-Id", sid, "MCP-Protocol-Version", "2025-11-25")
				return s, b
			}()
			return status, body
		}},
		{"stateless era", func(t *testing.T, url, title string) (int, string) {
			status, _, body := httpPost(t, url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"honua_studio_create_draft","arguments":{"title":`+title+`},`+statelessMeta+`}}`,
				"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "honua_studio_create_draft")
			return status, body
		}},
	}
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			s := New()
			srv := httptest.NewServer(s.Handler(mcpserver.HandlerOptions{}))
			t.Cleanup(srv.Close)

			status, body := era.send(t, srv.URL, strconv.Quote(huge))
			require.Equal(t, 200, status, "a tool error is an answer, not an HTTP failure")
			var rpc struct {
				Result callResult `json:"result"`
			}
			require.NoError(t, json.Unmarshal([]byte(body), &rpc), body[:min(len(body), 300)])
			require.True(t, rpc.Result.IsError)
			assert.Equal(t, "invalid_argument", rpc.Result.StructuredContent["code"])
			assert.Contains(t, rpc.Result.StructuredContent["message"], "at most 200 characters")
			assert.Less(t, len(body), 4096, "the refusal does not echo the title")
			drafts, bytes := s.stats()
			assert.Equal(t, [2]int{0, 0}, [2]int{drafts, bytes}, "nothing was stored")

			status, body = era.send(t, srv.URL, `"Parks"`)
			require.Equal(t, 200, status)
			assert.Contains(t, body, `\"draftId\":\"d-1\"`, "a title within the limit still makes a draft")
			drafts, _ = s.stats()
			assert.Equal(t, 1, drafts)
		})
	}
}
