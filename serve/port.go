// The serving port: options, construction, the fixed tool list and call(),
// which type-checks every argument, routes to a tool and never panics.

package serve

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/agentwasm/agentwasm/internal/errs"
)

// PortOptions configure a port.
type PortOptions struct {
	// ConfirmHighEffect requires confirm:true before firing high-effect
	// steps and actions [true].
	ConfirmHighEffect *bool
	// JourneyTools is "per-journey" (the default: one tool per declared
	// journey) or "single" (one journey tool taking a journey id).
	JourneyTools string
	// Source is the principal stamped on the port's fires [agent].
	Source Principal
	// Separator joins graph, door and journey id in tool names [.]; use
	// "__" for model providers that reject dots.
	Separator string
	// OfferLedger is how many freshness offers the port remembers
	// [DefaultOfferLedger]; an older offer answers OFFER_UNKNOWN.
	OfferLedger int
}

// The journeyTools modes.
const (
	JourneyToolsPerJourney = "per-journey"
	JourneyToolsSingle     = "single"
)

// maxArgs caps the arguments of one call.
const maxArgs = 1 << 20

type routeKind int

const (
	routeJourney routeKind = iota
	routeWhatsHere
	routeWhy
	routeDoAction
	routeDidItWork
)

type route struct {
	kind    routeKind
	journey string // per-journey mode
}

// Port serves an app session to a model as a fixed set of tools.
type Port struct {
	app     *App
	confirm bool
	single  bool
	source  Principal
	sep     string
	gated   bool   // the session enforces approval and this port fires as agent
	caller  string // the port's own caller identity (caller.go)

	instances, citing bool // the graph has repeating actions, "cite" actions

	tools     []Tool
	toolsJSON []byte
	toolNames []string
	routes    map[string]route
	names     struct{ whatsHere, why, doAction, didItWork string }
	dupName   string // a tool name composed twice (a separator that collides)

	mu     sync.Mutex
	frame  *frame
	closed atomic.Bool

	// Freshness (port_fresh.go), under mu: the version the port was built
	// at, the version of its last fire of each freshness action, and the
	// offer ledger.
	born        int64
	acked       map[string]int64
	offers      map[string]*offer
	latestOffer map[string]string // action → its newest offer
	offerOrder  []string
	offerSeq    int
	offerCap    int
}

// NewPort builds a port over app. Its tools are fixed here.
func NewPort(app *App, opts PortOptions) (*Port, error) {
	if app == nil {
		return nil, errs.New("serve: NewPort: the app session is nil; make one with NewApp")
	}
	p := &Port{app: app, confirm: true, source: PrincipalAgent, sep: ".", born: app.Version(), offerCap: DefaultOfferLedger,
		caller: newPortCaller()}
	if opts.OfferLedger < 0 {
		return nil, errs.New("serve: NewPort: offerLedger ", strconv.Itoa(opts.OfferLedger), " is negative; pass 0 for the default of ", strconv.Itoa(DefaultOfferLedger))
	}
	if opts.OfferLedger > 0 {
		p.offerCap = opts.OfferLedger
	}
	if opts.ConfirmHighEffect != nil {
		p.confirm = *opts.ConfirmHighEffect
	}
	switch opts.JourneyTools {
	case "", JourneyToolsPerJourney:
	case JourneyToolsSingle:
		p.single = true
	default:
		return nil, errs.New("serve: NewPort: journeyTools ", strconv.Quote(opts.JourneyTools), " is not a mode; use ", strconv.Quote(JourneyToolsPerJourney), " or ", strconv.Quote(JourneyToolsSingle))
	}
	if opts.Source != "" {
		if !validPrincipal(opts.Source) {
			return nil, errs.New("serve: NewPort: source ", strconv.Quote(string(opts.Source)), " is not a principal; use user, agent, system or unknown")
		}
		p.source = opts.Source
	}
	if opts.Separator != "" {
		p.sep = opts.Separator
	}
	p.gated = app.Enforcing() && p.source == PrincipalAgent
	p.instances, p.citing = app.g.usesInstances(), app.g.usesOffers()
	p.buildTools()
	if p.dupName != "" {
		return nil, errs.New("serve: NewPort: separator ", strconv.Quote(p.sep), " makes two tools named ", strconv.Quote(p.dupName), "; use \".\" or \"__\"")
	}
	// Only agent fires are gated, so a port stamping any other principal
	// (user, system, or unknown) on an enforcing session is ungated.
	if app.Enforcing() && p.source != PrincipalAgent {
		app.warn(WarnUngatedPort, "", "serve: a port stamping source "+strconv.Quote(string(p.source))+
			" was built on an app session that requires human approval: its fires are not gated; leave source at agent for a port a model holds")
		app.flushWarns()
	}
	return p, nil
}

// App returns the port's app session.
func (p *Port) App() *App { return p.app }

// Tools returns the port's tools (a copy; fixed at construction).
func (p *Port) Tools() []Tool {
	out := make([]Tool, len(p.tools))
	copy(out, p.tools)
	return out
}

// ToolsJSON returns the tool array as compact JSON, byte-identical for the
// port's life.
func (p *Port) ToolsJSON() []byte {
	return append([]byte(nil), p.toolsJSON...)
}

// Close ends the port: every later Call answers PORT_CLOSED (an error
// result) and performs nothing. Fires already running are not cancelled:
// they settle in the app session when their handlers answer, so its record
// stays true. Close is idempotent and safe to call concurrently with Call.
func (p *Port) Close() { p.closed.Store(true) }

// Closed reports whether Close was called.
func (p *Port) Closed() bool { return p.closed.Load() }

// DidItWorkTool returns the name of the port's did_it_work tool.
func (p *Port) DidItWorkTool() string { return p.names.didItWork }

// Call calls tool name with args (a JSON object; nil or empty means {}).
// It returns at once and never panics: a failure inside the port is an
// error result.
func (p *Port) Call(ctx context.Context, name string, args []byte) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			res = newResult("ok", false, "judgment", JudgmentError, "reason", ReasonInternal,
				"why", whyOf(ReasonInternal), "error", capText(errs.Text(r), maxErrorText)).withError()
		}
	}()
	if ctx == nil {
		ctx = context.Background()
	}
	if p.closed.Load() {
		return newResult("ok", false, "judgment", JudgmentError, "reason", ReasonPortClosed,
			"why", whyOf(ReasonPortClosed)).withError()
	}
	rt, ok := p.routes[name]
	if !ok {
		return p.position(newResult("ok", false, "judgment", JudgmentError, "reason", ReasonUnknownTool,
			"why", whyOf(ReasonUnknownTool), "tools", p.toolNames)).withError()
	}
	a, bad := parseArgs(args)
	if bad.fields != nil {
		return p.position(bad)
	}
	var r Result
	switch rt.kind {
	case routeJourney:
		r = p.callJourney(ctx, rt.journey, a)
		p.app.changed() // outside the port's lock: OnChange may call the port
	case routeWhatsHere:
		r = p.whatsHere(a, p.callerOf(ctx))
	case routeWhy:
		r = p.why(a)
	case routeDoAction:
		r = p.doAction(ctx, a)
		p.app.changed()
	case routeDidItWork:
		r = p.didItWork(a, p.callerOf(ctx))
	}
	return p.position(r)
}

// position adds youAreOn and version.
func (p *Port) position(r Result) Result {
	p.app.mu.Lock()
	page, v := p.app.page, p.app.version
	p.app.mu.Unlock()
	return r.With("youAreOn", page).With("version", v)
}

// args are the parsed arguments of a call.
type argMap map[string]any

// parseArgs parses raw arguments, or returns an error result.
func parseArgs(raw []byte) (argMap, Result) {
	if len(raw) > maxArgs {
		return nil, errorResult(ReasonArgumentsTooLarge, "error", "the arguments are "+strconv.Itoa(len(raw))+" bytes; the limit is "+strconv.Itoa(maxArgs))
	}
	blank := true
	for _, c := range raw {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			blank = false
			break
		}
	}
	if blank {
		return argMap{}, Result{}
	}
	v, err := ParseValue(raw)
	if err != nil {
		return nil, errorResult(ReasonInvalidArguments, "error", "the arguments are not valid JSON: "+capText(err.Error(), maxErrorText))
	}
	switch m := v.(type) {
	case nil:
		return argMap{}, Result{}
	case map[string]any:
		return argMap(m), Result{}
	}
	return nil, errorResult(ReasonInvalidArguments, "error", "the arguments must be a JSON object")
}

// errorResult is a port-level error (nothing fired) with extra fields.
func errorResult(reason string, kv ...any) Result {
	r := newResult("ok", false, "judgment", JudgmentError, "reason", reason, "why", whyOf(reason))
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		v := kv[i+1]
		if text, ok := v.(string); ok {
			// A name the model sent is echoed, but never more than a
			// line of it: a refusal stays small whatever came in.
			v = capText(text, maxEchoText)
		}
		r = r.With(k, v)
	}
	return r
}

// maxEchoText bounds an argument echoed back in an error result.
const maxEchoText = 200

// str returns the string argument key: "" when absent, null or empty; an
// error result when it is not a string.
func (a argMap) str(key string) (string, Result) {
	v, ok := a[key]
	if !ok || v == nil {
		return "", Result{}
	}
	s, isStr := v.(string)
	if !isStr {
		return "", errorResult(ReasonInvalidArguments, "error", key+" must be a string, not "+jsonType(v))
	}
	return s, Result{}
}

// flag returns the boolean argument key (false when absent or null).
func (a argMap) flag(key string) (bool, Result) {
	v, ok := a[key]
	if !ok || v == nil {
		return false, Result{}
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, errorResult(ReasonInvalidArguments, "error", key+" must be true or false, not "+jsonType(v))
	}
	return b, Result{}
}

// jsonType names the JSON type of v.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "an unknown value"
}

// fireArgs are the arguments shared by the journey tools and do_action.
type fireArgs struct {
	input           any
	hasInput        bool
	confirm, refuse bool
	instance        string // a repeating action's card
	offerID         string // a "cite" action's offer
	askID           string // the ask the call answers (askId), if cited
}

// fireArgs reads input, confirm and decline, and instance and offerId
// when the graph has actions that take them (a graph without them
// ignores those names, as it did before they existed).
func (p *Port) fireArgs(a argMap) (fireArgs, Result) {
	f, bad := a.fireArgs()
	if bad.fields != nil {
		return f, bad
	}
	if p.instances {
		switch v := a["instance"].(type) {
		case float64:
			f.instance = instanceKey(v) // a numeric card key, in its JSON form
		default:
			if f.instance, bad = a.str("instance"); bad.fields != nil {
				return f, bad
			}
		}
	}
	if p.citing {
		if f.offerID, bad = a.str("offerId"); bad.fields != nil {
			return f, bad
		}
	}
	return f, Result{}
}

// fireArgs reads input, confirm and decline.
func (a argMap) fireArgs() (fireArgs, Result) {
	var f fireArgs
	var bad Result
	if f.confirm, bad = a.flag("confirm"); bad.fields != nil {
		return f, bad
	}
	if f.refuse, bad = a.flag("decline"); bad.fields != nil {
		return f, bad
	}
	if f.confirm && f.refuse {
		return f, errorResult(ReasonInvalidArguments, "error", "confirm and decline cannot both be true; pass the person's one answer")
	}
	if f.askID, bad = a.str("askId"); bad.fields != nil {
		return f, bad
	}
	f.input, f.hasInput = a["input"]
	return f, Result{}
}
