// The serving port: options, construction, the fixed tool list and Call,
// which reads the arguments (port_args.go), routes to a tool and never
// panics; and errorResult, the result of a refusal.

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
	// Restore is the port snapshot the app session was restored from
	// (Port.Snapshot; AppOptions.Restore): the port takes the snapshot's
	// own caller identity, so the asks the old port's own calls raised
	// are still this port's to use. A snapshot refused, or taken over
	// another graph, makes NewPort fail with an error matching
	// ErrBadSnapshot. Without it the port is a new caller.
	Restore RawJSON
}

// The journeyTools modes.
const (
	JourneyToolsPerJourney = "per-journey"
	JourneyToolsSingle     = "single"
)

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
	if len(opts.Restore) > 0 {
		s, err := readSnapshot(opts.Restore, app.g, app.opts.ApprovalTTL)
		if err != nil {
			return nil, err
		}
		if s.caller != "" {
			p.caller = s.caller
		}
		if s.journey != "" {
			app.mu.Lock()
			p.frame = &frame{journey: s.journey, trans: make([]string, len(s.done)), start: len(app.order), done: s.done}
			app.mu.Unlock()
		}
	}
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
	a, err := parseArgs(args)
	if err != nil {
		return p.position(argRefusal(err))
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
