//go:build !js && !wasip1

// Package demomcp is the MCP server of `agentwasm dev`: a small catalog of
// classified honua_studio_* composition tools over drafts with generations,
// served by serve's MCP dispatcher in both eras, with list-changed
// notifications. It exists to show a session's composition plane working:
//
//   - the tools carry the classification a session's policy routes on
//     (_meta["honua.studio"] = {family, view, revision}); two more tools are
//     there to be refused (another family, and no classification);
//   - every edit names the draft's generation; an edit with a stale one
//     fails with code failed_precondition, and a session reloads the draft
//     and retries;
//   - a collaborator edits each new draft once, right after it is created,
//     so the first edit always meets that conflict;
//   - honua_studio_preview_draft joins the catalog when the first draft
//     exists, and listeners are told (notifications/tools/list_changed).
package demomcp

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/agentwasm/agentwasm/serve"
)

// Classification families of the catalog.
const (
	CompositionFamily = "honua.studio.composition"
	adminFamily       = "honua.admin"
)

// Layers are the layers a draft can hold.
var Layers = []string{"schools", "parks", "rivers"}

// draft is one draft's state.
type draft struct {
	DraftID    string            `json:"draftId"`
	Generation int64             `json:"generation"`
	Title      string            `json:"title"`
	Layers     []string          `json:"layers"`
	Styles     map[string]string `json:"styles,omitempty"`
}

// Server is the demo catalog. Its methods are safe for concurrent use.
type Server struct {
	d *serve.MCPDispatcher

	mu     sync.Mutex
	drafts map[string]*draft
	next   int
}

// New returns the catalog and its MCP dispatcher (both eras, session ids,
// list-changed notifications).
func New() *Server {
	s := &Server{drafts: map[string]*draft{}}
	s.d = serve.NewMCPDispatcher(s, serve.MCPDispatcherOptions{
		Name:         "agentwasm-dev-studio",
		Version:      "1.0.0",
		Instructions: "A demo Studio composition server: create a draft, then add and style layers on it. Every edit names the draft's generation.",
		Sessions:     true,
		ListChanged:  true,
	})
	return s
}

// Handler returns the Streamable HTTP handler (both eras) with opts.
func (s *Server) Handler(opts serve.MCPHandlerOptions) http.Handler {
	return serve.NewMCPHandler(s.d, opts)
}

// tool is one catalog entry.
type tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"inputSchema"`
	Annotations map[string]any `json:"annotations,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

func classified(family string) map[string]any {
	return map[string]any{"honua.studio": map[string]any{"family": family, "view": "setup", "revision": "1"}}
}

func object(required []string, props map[string]any) map[string]any {
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

var (
	strProp  = map[string]any{"type": "string"}
	genProp  = map[string]any{"type": "integer", "description": "the draft's generation; the session fills it in"}
	idProp   = map[string]any{"type": "string", "description": "the draft; the session fills it in"}
	layerArg = map[string]any{"type": "string", "enum": Layers}
)

// ListTools returns the catalog.
func (s *Server) ListTools() []byte {
	comp := classified(CompositionFamily)
	tools := []tool{
		{Name: "honua_studio_create_draft", Description: "Create a new map draft and bind it to the conversation.",
			InputSchema: object([]string{"title"}, map[string]any{"title": strProp}), Meta: comp},
		{Name: "honua_studio_get_draft", Description: "Read a draft: its generation, title and layers.",
			InputSchema: object(nil, map[string]any{"draftId": idProp}), Meta: comp,
			Annotations: map[string]any{"readOnlyHint": true}},
		{Name: "honua_studio_add_layer", Description: "Add a layer (schools, parks or rivers) to the draft.",
			InputSchema: object([]string{"layer"}, map[string]any{"draftId": idProp, "generation": genProp, "layer": layerArg}), Meta: comp},
		{Name: "honua_studio_set_layer_style", Description: "Set the colour of one of the draft's layers.",
			InputSchema: object([]string{"layer", "color"}, map[string]any{"draftId": idProp, "generation": genProp, "layer": layerArg, "color": strProp}), Meta: comp},
	}
	s.mu.Lock()
	haveDraft := len(s.drafts) > 0
	s.mu.Unlock()
	if haveDraft {
		tools = append(tools, tool{Name: "honua_studio_preview_draft", Description: "Describe how the draft will look when published.",
			InputSchema: object(nil, map[string]any{"draftId": idProp}), Meta: comp, Annotations: map[string]any{"readOnlyHint": true}})
	}
	tools = append(tools,
		tool{Name: "honua_admin_reset_tenant", Description: "Erase every map of the tenant. (Another family: a composition session must not route it.)",
			InputSchema: object(nil, map[string]any{}), Meta: classified(adminFamily), Annotations: map[string]any{"destructiveHint": true}},
		tool{Name: "server_time", Description: "The server's clock. (No classification: routed only when allow-listed.)",
			InputSchema: object(nil, map[string]any{})},
	)
	b, _ := json.Marshal(tools)
	return b
}

// CallTool runs one tool and returns its CallToolResult.
func (s *Server) CallTool(_ context.Context, name string, args []byte) []byte {
	var in struct {
		DraftID    string `json:"draftId"`
		Generation *int64 `json:"generation"`
		Title      string `json:"title"`
		Layer      string `json:"layer"`
		Color      string `json:"color"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return toolError("invalid_argument", "the arguments do not fit the tool's input schema: "+err.Error())
	}
	switch name {
	case "honua_studio_create_draft":
		return s.create(in.Title)
	case "honua_studio_get_draft", "honua_studio_preview_draft":
		s.mu.Lock()
		defer s.mu.Unlock()
		d, ok := s.drafts[in.DraftID]
		if !ok {
			return toolError("not_found", "no draft "+strconv.Quote(in.DraftID)+"; create one with honua_studio_create_draft")
		}
		if name == "honua_studio_preview_draft" {
			return result(map[string]any{"draft": ref(d), "preview": d.Title + " with " + strconv.Itoa(len(d.Layers)) + " layer(s)"})
		}
		return result(map[string]any{"draft": ref(d), "title": d.Title, "layers": d.Layers, "styles": d.Styles})
	case "honua_studio_add_layer", "honua_studio_set_layer_style":
		return s.edit(name, in.DraftID, in.Generation, in.Layer, in.Color)
	case "honua_admin_reset_tenant":
		return toolError("permission_denied", "the demo refuses to reset anything")
	case "server_time":
		return result(map[string]any{"note": "the demo server does not tell the time"})
	}
	return toolError("not_found", "no tool named "+strconv.Quote(name))
}

// create makes a draft at generation 1; the collaborator then renames it
// (generation 2); the first draft adds the preview tool to the catalog.
func (s *Server) create(title string) []byte {
	if title == "" {
		title = "Untitled map"
	}
	s.mu.Lock()
	s.next++
	d := &draft{DraftID: "d-" + strconv.Itoa(s.next), Generation: 1, Title: title, Layers: []string{}}
	s.drafts[d.DraftID] = d
	first := len(s.drafts) == 1
	answer := result(map[string]any{"draft": ref(d), "title": d.Title, "layers": d.Layers})
	d.Title += " (renamed by a collaborator)"
	d.Generation++
	s.mu.Unlock()
	if first {
		s.d.ToolsChanged()
	}
	return answer
}

// edit applies an edit to a draft at the generation it names.
func (s *Server) edit(name, id string, gen *int64, layer, color string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.drafts[id]
	switch {
	case !ok:
		return toolError("not_found", "no draft "+strconv.Quote(id)+"; create one with honua_studio_create_draft")
	case gen == nil:
		return toolError("invalid_argument", "the edit names no generation; read the draft with honua_studio_get_draft")
	case *gen != d.Generation:
		return toolError("failed_precondition", "draft "+id+" is at generation "+strconv.FormatInt(d.Generation, 10)+
			", not "+strconv.FormatInt(*gen, 10)+": someone else changed it; reload it with honua_studio_get_draft and try again")
	case !slices.Contains(Layers, layer):
		return toolError("invalid_argument", "unknown layer "+strconv.Quote(layer)+"; use schools, parks or rivers")
	}
	if name == "honua_studio_add_layer" {
		if !slices.Contains(d.Layers, layer) {
			d.Layers = append(d.Layers, layer)
		}
	} else {
		if !slices.Contains(d.Layers, layer) {
			return toolError("not_found", "the draft has no "+layer+" layer; add it first")
		}
		if d.Styles == nil {
			d.Styles = map[string]string{}
		}
		d.Styles[layer] = color
	}
	d.Generation++
	return result(map[string]any{"draft": ref(d), "layers": d.Layers})
}

// ref is a draft's binding.
func ref(d *draft) map[string]any {
	return map[string]any{"draftId": d.DraftID, "generation": d.Generation}
}

// result is a successful CallToolResult: the object as structuredContent
// and as a text block.
func result(v map[string]any) []byte {
	b, _ := json.Marshal(v)
	out, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": string(b)}}, "structuredContent": json.RawMessage(b)})
	return out
}

// toolError is a CallToolResult with isError and {code, message}.
func toolError(code, message string) []byte {
	b, _ := json.Marshal(map[string]string{"code": code, "message": message})
	out, _ := json.Marshal(map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": string(b)}}, "structuredContent": json.RawMessage(b)})
	return out
}
