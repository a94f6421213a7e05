// Options of the MCP side of a session: the tool policy, the draft binding,
// the list-changed watch and a replacement MCP client. They are accepted and
// validated now; discovery and routing of MCP tools use them.

package session

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/session/mcpclient"
)

// DefaultToolDiscoveryTimeout bounds one tool discovery pass when
// Options.ToolDiscoveryTimeout is zero.
const DefaultToolDiscoveryTimeout = 15 * time.Second

// DraftBinding is the composition draft that composition tools mutate.
//
//easyjson:json
//agentwasm:encode-only
type DraftBinding struct {
	DraftID    string `json:"draftId"`
	Generation int64  `json:"generation"`
}

// ToolPolicy decides which tools discovered on the MCP server this session
// may advertise and route (Options.StudioTools). Routing needs a positive
// signal (a classification or an exact allowlisted name), never a prefix.
type ToolPolicy struct {
	// Families a classified tool's family must be in. Nil means
	// DefaultToolFamilies.
	Families []string
	// Views, when non-nil, a classified tool's view must be in.
	Views []string
	// Allowlist routes unclassified tools by exact name.
	Allowlist []string
	// Approve may veto a tool the rules above accept.
	Approve func(ToolCatalogEntry) bool
	// Required names tools whose absence is reported (missingRequired and
	// diagnostics). Nil means DefaultRequiredTools; it never routes anything.
	Required []string
}

// ToolCatalogEntry is one tool the MCP server advertised, as the policy sees it.
type ToolCatalogEntry struct {
	Name           string
	Description    string
	InputSchema    RawJSON
	Annotations    RawJSON
	Classification *ToolClassification
}

// ToolClassification is read from a tool's _meta["honua.studio"], else its
// annotations["honua.studio"].
//
//easyjson:json
//agentwasm:encode-only
type ToolClassification struct {
	Family   string `json:"family,omitempty"`
	View     string `json:"view,omitempty"`
	Revision string `json:"revision,omitempty"`
}

// DefaultToolFamilies is the family the policy routes by default.
var DefaultToolFamilies = []string{"honua.studio.composition"}

// DefaultRequiredTools are the 15 baseline Studio composition tools.
var DefaultRequiredTools = []string{
	"honua_studio_create_draft", "honua_studio_get_draft", "honua_studio_update_draft",
	"honua_studio_validate_draft", "honua_studio_preview_draft", "honua_studio_add_layer",
	"honua_studio_remove_layer", "honua_studio_set_layer_style", "honua_studio_set_layer_visibility",
	"honua_studio_set_view", "honua_studio_add_widget", "honua_studio_remove_widget",
	"honua_studio_bind_interaction", "honua_studio_remove_interaction", "honua_studio_propose_publication",
}

// WatchOptions tunes the list-changed watch (Options.ToolListChangedWatch).
// Zero fields take the defaults given.
type WatchOptions struct {
	InitialDelay time.Duration // first reconnect delay [1s]
	Factor       float64       // backoff factor [2]
	MaxDelay     time.Duration // reconnect delay ceiling [30s]
	// MaxReconnectAttempts is the reconnect budget; nil means 5, and a
	// pointer to 0 never reconnects.
	MaxReconnectAttempts *int
	// StableStream is how long a connection must stay open to reset the
	// attempt counter [MaxDelay].
	StableStream time.Duration
	// OnStatus observes status changes; a panic in it is ignored.
	OnStatus func(status, detail string)
}

// MCPClient is the MCP client a session discovers and calls MCP tools
// through (Options.MCPClient); *mcpclient.Client is the default. A client
// may also implement the optional MCPPageLister, MCPListener and
// MCPContextCloser, which the session finds by type assertion.
//
// Implementations must be safe for concurrent use. Discovery passes run on
// goroutines of their own (started by a turn, RefreshTools, a background
// retry or a list-changed notification), and a new pass may start while an
// older one is still listing; a turn's tool calls, the watch's stream and
// Close may overlap any of them. A session makes one CallTool at a time:
// one turn runs at a time, and its calls run in order. A panic in any
// method is recovered and reported as that call's error.
type MCPClient interface {
	// ListTools returns the server's whole tool catalog, in server order, or
	// an error; never a partial catalog. Discovery calls it (unless the client
	// is an MCPPageLister) with a context that ends when
	// Options.ToolDiscoveryTimeout passes; a call still running then is no
	// longer waited for, and no background retry starts until it has returned.
	// An error matching ErrEndpointAbsent is remembered as an absent endpoint.
	ListTools(ctx context.Context) ([]mcpclient.Tool, error)
	// CallTool calls the named tool with args (a JSON object). A tool that
	// reported an error returns its result together with an
	// *mcpclient.ToolError; its Code CodeFailedPrecondition, on a call
	// bound to a draft, makes the session reload the draft (GetDraftTool)
	// and call once more. A turn calls it for each call the model makes to
	// a routed MCP tool, with the turn's context, and waits for it: it
	// should return soon after ctx ends.
	CallTool(ctx context.Context, name string, args RawJSON) (mcpclient.ToolResult, error)
	// Close ends the client's MCP session. The session calls it from
	// Session.Close and from every Session.Reconnect (CloseContext instead,
	// for an MCPContextCloser), maybe while other calls are in flight, and
	// goes on using the client afterwards: a later call must work, starting
	// a new MCP session if it needs one.
	Close() error
}

// The default client implements every interface the session takes.
var (
	_ MCPClient     = (*mcpclient.Client)(nil)
	_ MCPPageLister = (*mcpclient.Client)(nil)
	_ MCPListener   = (*mcpclient.Client)(nil)
)

// validateMCPOptions checks the MCP-side options.
func (o *Options) validateMCPOptions() error {
	if d := o.Draft; d != nil && d.DraftID == "" {
		return errors.New("session: Draft has no DraftID; give the draft's id, or no Draft")
	}
	if d := o.Draft; d != nil && d.Generation < 0 {
		return errs.New("session: Draft.Generation is ", strconv.FormatInt(d.Generation, 10), "; generations are 0 or more")
	}
	if p := o.StudioTools; p != nil {
		for _, list := range [][]string{p.Families, p.Views, p.Allowlist, p.Required} {
			for _, name := range list {
				if name == "" {
					return errors.New("session: StudioTools has an empty name in a list; remove it")
				}
			}
		}
	}
	if w := o.ToolListChangedWatch; w != nil {
		switch {
		case w.InitialDelay < 0 || w.MaxDelay < 0 || w.StableStream < 0:
			return errors.New("session: ToolListChangedWatch delays must not be negative")
		case w.Factor != 0 && w.Factor < 1:
			return errs.New("session: ToolListChangedWatch.Factor is ", strconv.FormatFloat(w.Factor, 'g', -1, 64), "; give 1 or more, or 0 for the default 2")
		case w.MaxReconnectAttempts != nil && *w.MaxReconnectAttempts < 0:
			return errs.New("session: ToolListChangedWatch.MaxReconnectAttempts is ", strconv.Itoa(*w.MaxReconnectAttempts), "; give 0 or more")
		}
	}
	return nil
}
