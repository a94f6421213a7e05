//go:build !js && !wasip1

// Package demomcp is the MCP server of `agentwasm dev`: a small catalog of
// classified honua_studio_* composition tools over drafts with generations,
// served by serve/mcpserver's dispatcher in both eras, with list-changed
// notifications. It exists to show a session's composition plane working:
//
//   - the tools carry the classification a session's policy routes on
//     (_meta["honua.studio"] = {family, view, revision}); two more tools are
//     there to be refused (another family, and no classification);
//   - every edit names the draft's generation; an edit with a stale one
//     fails with code failed_precondition, and a session reloads the draft
//     and retries; an edit that changes nothing (a layer the draft has)
//     leaves the draft at its generation and says added: false;
//   - a collaborator edits each new draft once, right after it is created,
//     so the first edit always meets that conflict;
//   - honua_studio_preview_draft joins the catalog when the first draft
//     exists, and listeners are told (notifications/tools/list_changed);
//   - [Server.Reset] puts it back as it started (no drafts, the first
//     catalog, listeners told), so a new conversation in the demo page
//     meets the conflict and the list-changed moment again.
//
// # What it keeps
//
// The server holds its drafts in memory, and every bound is a [Limits]
// field (the defaults are the Default* constants):
//
//   - a title longer than MaxTitleRunes characters (200), or a colour
//     longer than MaxColorRunes (64), is refused with an invalid_argument
//     tool error the model reads (it says the limit; shorten and call
//     again); nothing of the refused call is kept;
//   - at most MaxDrafts drafts (50) holding at most MaxBytes bytes (1 MiB)
//     in all. Creating a draft past either bound drops the draft left
//     alone longest (the least recently created, read or edited) to make
//     room, so the demo keeps working however long it runs and the draft a
//     conversation is working on stays. A later call naming a dropped
//     draft is answered not_found with a message saying it was dropped and
//     how to go on (create a new one). An edit that would push the total
//     past MaxBytes drops other drafts the same way; a single draft that
//     cannot fit on its own is refused with resource_exhausted.
//
// A dropped draft is deleted from the store and its bytes leave the total,
// so the memory it held is released.
package demomcp

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/agentwasm/agentwasm/serve/mcpserver"
)

// Classification families of the catalog.
const (
	CompositionFamily = "honua.studio.composition"
	adminFamily       = "honua.admin"
)

// Layers are the layers a draft can hold.
var Layers = []string{"schools", "parks", "rivers"}

// The default bounds of what the server keeps (see [Limits]).
const (
	// DefaultMaxDrafts is how many drafts the server keeps by default.
	DefaultMaxDrafts = 50
	// DefaultMaxBytes is how many bytes all drafts may hold by default
	// (1 MiB), counted as [Limits] says.
	DefaultMaxBytes = 1 << 20
	// DefaultMaxTitleRunes is the longest title, in characters (Unicode
	// code points), a draft is created with by default.
	DefaultMaxTitleRunes = 200
	// DefaultMaxColorRunes is the longest layer colour, in characters,
	// honua_studio_set_layer_style accepts by default.
	DefaultMaxColorRunes = 64
)

// draftOverhead is what a draft counts for besides its strings: an
// estimate of its record, map entry and slices, so that many tiny drafts
// count too.
const draftOverhead = 128

// Limits bound what the server keeps in memory. A zero field takes its
// default (the Default* constants); a negative one is treated as zero too.
type Limits struct {
	// MaxDrafts is how many drafts the server keeps; creating one more
	// drops the draft left alone longest.
	MaxDrafts int
	// MaxBytes is how many bytes all drafts may hold together: each
	// counts the bytes of its strings (id, title, layers, style names and
	// colours) plus a fixed 128 for its record. Past it the draft left
	// alone longest is dropped; a draft that cannot fit alone is refused.
	MaxBytes int
	// MaxTitleRunes is the longest title, in characters, a draft is
	// created with; a longer one is refused (invalid_argument).
	MaxTitleRunes int
	// MaxColorRunes is the longest colour, in characters, a layer style
	// takes; a longer one is refused (invalid_argument).
	MaxColorRunes int
}

// withDefaults fills the zero fields.
func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.MaxDrafts, DefaultMaxDrafts)
	def(&l.MaxBytes, DefaultMaxBytes)
	def(&l.MaxTitleRunes, DefaultMaxTitleRunes)
	def(&l.MaxColorRunes, DefaultMaxColorRunes)
	return l
}

// draft is one draft's state.
type draft struct {
	DraftID    string            `json:"draftId"`
	Generation int64             `json:"generation"`
	Title      string            `json:"title"`
	Layers     []string          `json:"layers"`
	Styles     map[string]string `json:"styles,omitempty"`

	used int64 // when it was last created, read or edited (the server's use counter)
	size int   // what it counts for against MaxBytes (draftSize when last measured)
}

// draftSize is what d counts for against Limits.MaxBytes.
func draftSize(d *draft) int {
	n := draftOverhead + len(d.DraftID) + len(d.Title)
	for _, l := range d.Layers {
		n += len(l)
	}
	for k, v := range d.Styles {
		n += len(k) + len(v)
	}
	return n
}

// Server is the demo catalog. Its methods are safe for concurrent use.
type Server struct {
	d      *mcpserver.Dispatcher
	limits Limits

	mu       sync.Mutex
	drafts   map[string]*draft
	bytes    int   // the sum of the drafts' sizes
	next     int   // the last draft number handed out (never reused, across resets too)
	resetAt  int   // next when Reset last ran: drafts up to it were removed by a reset
	uses     int64 // the use counter
	hadDraft bool  // a draft was created (the preview tool is in the catalog)
}

// New returns the catalog and its MCP dispatcher (both eras, session ids,
// list-changed notifications), with the default limits.
func New() *Server {
	return NewWithLimits(Limits{})
}

// NewWithLimits is [New] with limits (zero fields take their defaults).
func NewWithLimits(limits Limits) *Server {
	return NewWithOptions(Options{Limits: limits})
}

// Options configure a [Server] made by [NewWithOptions].
type Options struct {
	// Limits bound what the server keeps (zero fields take their
	// defaults).
	Limits Limits
	// Tracer, when set, makes a server span of each MCP request and
	// notification the server answers (mcpserver.Options.Tracer), e.g.
	// tracing.MCPServer(tracer); nil: none.
	Tracer mcpserver.Tracer
}

// NewWithOptions is [New] with options.
func NewWithOptions(o Options) *Server {
	s := &Server{drafts: map[string]*draft{}, limits: o.Limits.withDefaults()}
	s.d = mcpserver.New(s, mcpserver.Options{
		Name:         "agentwasm-dev-studio",
		Version:      "1.0.0",
		Instructions: "A demo Studio composition server: create a draft, then add and style layers on it. Every edit names the draft's generation.",
		Sessions:     true,
		ListChanged:  true,
		Tracer:       o.Tracer,
	})
	return s
}

// Handler returns the Streamable HTTP handler (both eras) with opts.
func (s *Server) Handler(opts mcpserver.HandlerOptions) http.Handler {
	return mcpserver.NewHandler(s.d, opts)
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

// boundedString is a string property of at most n characters.
func boundedString(n int) map[string]any {
	return map[string]any{"type": "string", "maxLength": n}
}

var (
	genProp  = map[string]any{"type": "integer", "description": "the draft's generation; the session fills it in"}
	idProp   = map[string]any{"type": "string", "description": "the draft; the session fills it in"}
	layerArg = map[string]any{"type": "string", "enum": Layers}
)

// ListTools returns the catalog.
func (s *Server) ListTools() []byte {
	comp := classified(CompositionFamily)
	tools := []tool{
		{Name: "honua_studio_create_draft", Description: "Create a new map draft and bind it to the conversation.",
			InputSchema: object([]string{"title"}, map[string]any{"title": boundedString(s.limits.MaxTitleRunes)}), Meta: comp},
		{Name: "honua_studio_get_draft", Description: "Read a draft: its generation, title and layers.",
			InputSchema: object(nil, map[string]any{"draftId": idProp}), Meta: comp,
			Annotations: map[string]any{"readOnlyHint": true}},
		{Name: "honua_studio_add_layer", Description: "Add a layer (schools, parks or rivers) to the draft.",
			InputSchema: object([]string{"layer"}, map[string]any{"draftId": idProp, "generation": genProp, "layer": layerArg}), Meta: comp},
		{Name: "honua_studio_set_layer_style", Description: "Set the colour of one of the draft's layers.",
			InputSchema: object([]string{"layer", "color"}, map[string]any{"draftId": idProp, "generation": genProp, "layer": layerArg, "color": boundedString(s.limits.MaxColorRunes)}), Meta: comp},
	}
	s.mu.Lock()
	haveDraft := s.hadDraft
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
			return s.notFound(in.DraftID)
		}
		s.touch(d)
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
// (generation 2); the first draft adds the preview tool to the catalog. A
// title past MaxTitleRunes is refused before anything is kept; past
// MaxDrafts or MaxBytes the drafts left alone longest are dropped.
func (s *Server) create(title string) []byte {
	if n := utf8.RuneCountInString(title); n > s.limits.MaxTitleRunes {
		return toolError("invalid_argument", "the title is "+strconv.Itoa(n)+" characters long; this server takes titles of at most "+
			strconv.Itoa(s.limits.MaxTitleRunes)+" characters: shorten it and call honua_studio_create_draft again")
	}
	if title == "" {
		title = "Untitled map"
	}
	s.mu.Lock()
	id := "d-" + strconv.Itoa(s.next+1)
	d := &draft{DraftID: id, Generation: 1, Title: title, Layers: []string{}}
	answer := result(map[string]any{"draft": ref(d), "title": d.Title, "layers": d.Layers})
	d.Title += " (renamed by a collaborator)"
	d.Generation++
	d.size = draftSize(d)
	if d.size > s.limits.MaxBytes {
		s.mu.Unlock()
		return toolError("resource_exhausted", "the draft would hold "+strconv.Itoa(d.size)+" bytes; this server keeps at most "+
			strconv.Itoa(s.limits.MaxBytes)+" bytes of drafts: use a shorter title")
	}
	for len(s.drafts) >= s.limits.MaxDrafts || s.bytes+d.size > s.limits.MaxBytes {
		if !s.dropOldest("") {
			break // nothing left to drop: the store is empty and d fits alone
		}
	}
	s.next++
	s.drafts[id] = d
	s.bytes += d.size
	s.touch(d)
	first := !s.hadDraft
	s.hadDraft = true
	s.mu.Unlock()
	if first {
		s.d.ToolsChanged()
	}
	return answer
}

// touch marks d used now; call it with the lock.
func (s *Server) touch(d *draft) {
	s.uses++
	d.used = s.uses
}

// dropOldest deletes the draft left alone longest, other than keep, and
// reports whether there was one; call it with the lock.
func (s *Server) dropOldest(keep string) bool {
	var oldest *draft
	for id, d := range s.drafts {
		if id != keep && (oldest == nil || d.used < oldest.used) {
			oldest = d
		}
	}
	if oldest == nil {
		return false
	}
	delete(s.drafts, oldest.DraftID)
	s.bytes -= oldest.size
	return true
}

// Reset puts the server back as it started: no drafts, and the catalog
// without the tool the first draft adds — then tells listeners the catalog
// changed, when it did, so every open MCP session lists the first catalog
// again. Draft ids are not reused: a later call naming a draft from before
// the reset is answered not_found, saying the demo was reset. The MCP
// sessions themselves stay open.
func (s *Server) Reset() {
	s.mu.Lock()
	clear(s.drafts)
	s.bytes = 0
	s.resetAt = s.next
	changed := s.hadDraft
	s.hadDraft = false
	s.mu.Unlock()
	if changed {
		s.d.ToolsChanged()
	}
}

// notFound answers a call naming no kept draft: one a reset removed, one
// this server dropped (it created it, see Limits), or one it never had;
// call it with the lock.
func (s *Server) notFound(id string) []byte {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "d-"))
	known := err == nil && strings.HasPrefix(id, "d-") && n >= 1
	if known && n <= s.resetAt {
		return toolError("not_found", "draft "+strconv.Quote(id)+" was removed when the demo was reset (a new conversation); "+
			"create a new one with honua_studio_create_draft")
	}
	if known && n <= s.next {
		return toolError("not_found", "draft "+strconv.Quote(id)+" was dropped: this server keeps at most "+strconv.Itoa(s.limits.MaxDrafts)+
			" drafts ("+strconv.Itoa(s.limits.MaxBytes)+" bytes) and drops the one left alone longest; create a new one with honua_studio_create_draft")
	}
	return toolError("not_found", "no draft "+strconv.Quote(id)+"; create one with honua_studio_create_draft")
}

// stats returns how many drafts the server keeps and the bytes they count
// for.
func (s *Server) stats() (drafts, bytes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.drafts), s.bytes
}

// edit applies an edit to a draft at the generation it names; each change
// moves it to the next generation, and adding a layer it already has
// changes nothing (added: false, the same generation). A colour
// past MaxColorRunes is refused; an edit that pushes the total past
// MaxBytes drops other drafts, and is refused when the draft cannot fit
// on its own.
func (s *Server) edit(name, id string, gen *int64, layer, color string) []byte {
	if n := utf8.RuneCountInString(color); n > s.limits.MaxColorRunes {
		return toolError("invalid_argument", "the colour is "+strconv.Itoa(n)+" characters long; this server takes colours of at most "+
			strconv.Itoa(s.limits.MaxColorRunes)+" characters, like \"green\" or \"#2b8a3e\": shorten it and call again")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.drafts[id]
	switch {
	case !ok:
		return s.notFound(id)
	case gen == nil:
		return toolError("invalid_argument", "the edit names no generation; read the draft with honua_studio_get_draft")
	case *gen != d.Generation:
		return toolError("failed_precondition", "draft "+id+" is at generation "+strconv.FormatInt(d.Generation, 10)+
			", not "+strconv.FormatInt(*gen, 10)+": someone else changed it; reload it with honua_studio_get_draft and try again")
	case !slices.Contains(Layers, layer):
		return toolError("invalid_argument", "unknown layer "+strconv.Quote(layer)+"; use schools, parks or rivers")
	}
	s.touch(d)
	if name == "honua_studio_set_layer_style" && !slices.Contains(d.Layers, layer) {
		return toolError("not_found", "the draft has no "+layer+" layer; add it first")
	}
	if name == "honua_studio_add_layer" && slices.Contains(d.Layers, layer) {
		// Nothing to change: the draft stays at its generation, which
		// tells the caller so.
		return result(map[string]any{"draft": ref(d), "layers": d.Layers, "added": false})
	}
	// The edit on a copy, measured before it is kept.
	next := *d
	if name == "honua_studio_add_layer" {
		next.Layers = append(slices.Clip(d.Layers), layer)
	} else {
		next.Styles = make(map[string]string, len(d.Styles)+1)
		for k, v := range d.Styles {
			next.Styles[k] = v
		}
		next.Styles[layer] = color
	}
	next.size = draftSize(&next)
	if next.size > s.limits.MaxBytes {
		return toolError("resource_exhausted", "the edit would make draft "+id+" hold "+strconv.Itoa(next.size)+
			" bytes; this server keeps at most "+strconv.Itoa(s.limits.MaxBytes)+" bytes of drafts")
	}
	for s.bytes-d.size+next.size > s.limits.MaxBytes {
		if !s.dropOldest(id) {
			break // only d is left, and it fits alone
		}
	}
	s.bytes += next.size - d.size
	*d = next
	d.Generation++
	if name == "honua_studio_add_layer" {
		return result(map[string]any{"draft": ref(d), "layers": d.Layers, "added": true})
	}
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
