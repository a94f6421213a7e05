// The app session: the current page, the state, the version, the event log
// behind why and the brief, host reports of what the person did, and the
// once-only warnings.

package serve

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentwasm/agentwasm/internal/errs"
)

// Principal says who made a fire or a change.
type Principal string

// The principals.
const (
	PrincipalUser    Principal = "user"
	PrincipalAgent   Principal = "agent"
	PrincipalSystem  Principal = "system"
	PrincipalUnknown Principal = "unknown"
)

// validPrincipal reports whether p is one of the four principals.
func validPrincipal(p Principal) bool {
	switch p {
	case PrincipalUser, PrincipalAgent, PrincipalSystem, PrincipalUnknown:
		return true
	}
	return false
}

// Handler performs an action for the host. It runs on its own goroutine
// under recover; returning an error (or panicking) settles the transition
// refused, returning normally settles it performed with data.
type Handler func(ctx context.Context, call HandlerCall) (data any, err error)

// HandlerCall is what a handler is called with.
type HandlerCall struct {
	Action       string
	Input        any
	Source       Principal
	TransitionID string
	// Instance is the card a repeating action acts on ("" for others).
	Instance string
}

// AppOptions configure an app session.
type AppOptions struct {
	// Page is the start page [the first declared page].
	Page string
	// State is the initial state; it is copied.
	State State
	// RequireHumanApproval gates agent fires of high-effect actions on a
	// human-approved ask. nil means the host never said either way, which
	// enables the unguarded-fire warning.
	RequireHumanApproval *bool
	// Handlers maps action ids to the host code that performs them.
	Handlers map[string]Handler
	// OnWarn receives the once-only warnings; it is called under recover.
	OnWarn func(Warning)
	// Now is the clock [time.Now]; if it panics, time.Now is read instead.
	Now func() time.Time
	// ApprovalTTL is how long an approved ask stays usable, from the
	// person's approval to the one fire it backs [DefaultApprovalTTL].
	// Past it the ask reads "expired" and a fire citing it is refused
	// APPROVAL_STALE.
	ApprovalTTL time.Duration
	// Restore is a port snapshot (App.Snapshot or Port.Snapshot, taken
	// over the same graph): the new session starts with its ask journal,
	// so a card pending when it was taken can still be approved or
	// declined. Each ask keeps its id, its caller and its expiry. A
	// refused snapshot (another format, an unknown version, not JSON,
	// another graph, an ask whose action the graph lacks, more than
	// MaxSnapshotSize bytes) makes NewApp fail with an error matching
	// ErrBadSnapshot, and nothing is made. The app's own data is not in a
	// snapshot: pass it as State and Page.
	Restore RawJSON
}

// DefaultApprovalTTL is how long an approved ask stays usable when
// AppOptions.ApprovalTTL is not set: two minutes. The caller that asked
// fires within seconds of the person's yes (a session resumes its turn
// at once; an MCP client calls again); an approval left unused longer is
// more likely forgotten than meant, and the conversation may have moved
// on since, so it lapses and the caller asks again.
const DefaultApprovalTTL = 2 * time.Minute

// Warning is a once-only notice to the host about how the session is set
// up.
type Warning struct {
	Code, Message, Action string
}

// The warning codes.
const (
	WarnUnguardedFire = "UNGUARDED_HIGH_EFFECT_FIRE"
	WarnUngatedPort   = "UNGATED_PORT"
)

// eventKind says what an entry of the log records.
type eventKind int

const (
	evFired eventKind = iota
	evSettled
	evReported
	evNavigated
	evPatched
)

// event is one entry of the session's log; each bumps the version.
type event struct {
	version    int64
	kind       eventKind
	by         Principal
	at         time.Time
	action     string
	transition string
	status     string   // settlement status
	page       string   // navigation target or page moved to
	keys       []string // keys patched or written
}

// App is an app session: what the port serves. All methods are safe for
// concurrent use.
type App struct {
	g    *Graph
	opts AppOptions
	now  func() time.Time

	mu          sync.Mutex
	page        string
	state       State
	version     int64
	log         []event
	transitions map[string]*transition
	order       []string // transition ids in the order they were made
	counts      map[string]int
	asks        map[string]*ask
	askOrder    []string
	newAskID    func() string // the ask id generator [newAskID]; tests may stamp ids in order
	humanSeq    int64
	grants      map[string]*grant
	lastNo      map[string]int64
	warned      map[string]bool
	warnQueue   []Warning
	onChange    []func()
	settledCh   chan struct{} // closed and replaced on every settlement

	// The second version's bookkeeping, empty for a graph without its
	// fields.
	mounted  map[string][]string // repeating area → the cards the host listed
	busy     map[string]string   // action, area or page → busy label
	once     map[string]string   // action (+ instance) → its performed fire, for concurrency "once"
	inFlight map[string]string   // action (+ instance) → its pending fire, for "single-flight"

	life  context.Context // cancelled by Close; parents handler contexts
	close context.CancelFunc
}

// NewApp starts an app session over g.
func NewApp(g *Graph, opts AppOptions) (*App, error) {
	if g == nil {
		return nil, errors.New("serve: NewApp: the graph is nil; parse one with ParseGraph first")
	}
	if len(g.Pages) == 0 {
		return nil, errs.New("serve: NewApp: graph ", strconv.Quote(g.ID), " declares no pages; declare at least one page")
	}
	page := opts.Page
	if page == "" {
		page = g.Pages[0].ID
	} else if g.Page(page) == nil {
		return nil, errs.New("serve: NewApp: start page ", strconv.Quote(page), " is not declared in graph ", strconv.Quote(g.ID), "; use one of its pages")
	}
	for id := range opts.Handlers {
		if g.Action(id) == nil {
			return nil, errs.New("serve: NewApp: handler for ", strconv.Quote(id), ": no such action in graph ", strconv.Quote(g.ID))
		}
	}
	if opts.ApprovalTTL <= 0 {
		opts.ApprovalTTL = DefaultApprovalTTL
	}
	now := time.Now
	if opts.Now != nil {
		now = safeClock(opts.Now)
	}
	handlers := make(map[string]Handler, len(opts.Handlers))
	for k, v := range opts.Handlers {
		handlers[k] = v
	}
	opts.Handlers = handlers
	st := State{}
	for k, v := range opts.State {
		st[k] = CloneValue(v)
	}
	var restored *portSnapshot
	if len(opts.Restore) > 0 {
		var err error
		if restored, err = readSnapshot(opts.Restore, g, opts.ApprovalTTL); err != nil {
			return nil, err
		}
		opts.Restore = nil
	}
	life, closeFn := context.WithCancel(context.Background())
	a := &App{
		life: life, close: closeFn,
		g: g, opts: opts, now: now,
		page: page, state: st,
		transitions: map[string]*transition{},
		counts:      map[string]int{},
		asks:        map[string]*ask{},
		grants:      map[string]*grant{},
		lastNo:      map[string]int64{},
		warned:      map[string]bool{},
		settledCh:   make(chan struct{}),
		newAskID:    newAskID,
	}
	if restored != nil {
		a.restoreAsks(restored)
	}
	return a, nil
}

// safeClock wraps a host clock, which the session reads while holding its
// lock: a clock that panics reads as time.Now instead, so the panic can
// neither escape nor leave the session locked.
func safeClock(now func() time.Time) func() time.Time {
	return func() (t time.Time) {
		defer func() {
			if recover() != nil {
				t = time.Now()
			}
		}()
		return now()
	}
}

// Close cancels the contexts of every running handler. Their transitions
// settle as the handlers return (refused if they return the context's
// error). The session stays usable.
func (a *App) Close() { a.close() }

// Graph returns the session's graph.
func (a *App) Graph() *Graph { return a.g }

// Page returns the current page.
func (a *App) Page() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.page
}

// State returns a copy of the state.
func (a *App) State() State {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stateCopy()
}

func (a *App) stateCopy() State {
	out := make(State, len(a.state))
	for k, v := range a.state {
		out[k] = CloneValue(v)
	}
	return out
}

// Version returns the session's version: it goes up by one for every
// fire, settlement, report, navigation and patch.
func (a *App) Version() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.version
}

// Enforcing reports whether the session requires human approval.
func (a *App) Enforcing() bool {
	return a.opts.RequireHumanApproval != nil && *a.opts.RequireHumanApproval
}

// OnChange registers fn to be called after any change; fn runs under
// recover, outside the session's lock.
func (a *App) OnChange(fn func()) {
	if fn == nil {
		return
	}
	a.mu.Lock()
	a.onChange = append(a.onChange, fn)
	a.mu.Unlock()
}

// changed calls the OnChange functions; call it without the lock.
func (a *App) changed() {
	a.flushWarns()
	a.mu.Lock()
	fns := append([]func(){}, a.onChange...)
	a.mu.Unlock()
	for _, fn := range fns {
		func() {
			defer func() { _ = recover() }()
			fn()
		}()
	}
}

// record appends an event with the next version; call it with the lock.
func (a *App) record(e event) {
	a.version++
	e.version = a.version
	e.at = a.now()
	a.log = append(a.log, e)
	if len(a.log) >= 2*maxLog {
		// Trimmed in bulk, so recording stays O(1) amortized.
		a.log = append(a.log[:0:0], a.log[len(a.log)-maxLog:]...)
	}
}

// maxLog is how far back the event log reaches at least; it holds at most
// twice that.
const maxLog = 4096

// Navigate reports that the app is now on page, moved by by.
func (a *App) Navigate(page string, by Principal) error {
	if a.g.Page(page) == nil {
		return errs.New("serve: Navigate: page ", strconv.Quote(page), " is not declared in graph ", strconv.Quote(a.g.ID), "; use one of its pages")
	}
	by = principalOr(by, PrincipalUser)
	a.mu.Lock()
	a.page = page
	a.record(event{kind: evNavigated, by: by, page: page})
	a.mu.Unlock()
	a.changed()
	return nil
}

// Patch sets the given state keys (a nil value deletes the key), changed
// by by.
func (a *App) Patch(state State, by Principal) error {
	if len(state) == 0 {
		return errors.New("serve: Patch: nothing to patch; pass at least one key")
	}
	by = principalOr(by, PrincipalUser)
	keys := make([]string, 0, len(state))
	for k := range state {
		if k == "" {
			return errors.New("serve: Patch: empty state key; name every key")
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	a.mu.Lock()
	for _, k := range keys {
		if v := state[k]; v == nil {
			delete(a.state, k)
		} else {
			a.state[k] = CloneValue(v)
		}
	}
	a.record(event{kind: evPatched, by: by, keys: keys})
	a.mu.Unlock()
	a.changed()
	return nil
}

// Report records that the person did action themselves (source user),
// settled performed with data: a goTo moves the page, declared writes
// found in data are applied.
func (a *App) Report(action string, input any, data any) (string, error) {
	return a.ReportInstance(action, "", input, data)
}

// ReportInstance is Report for the card instance of a repeating action:
// the record names the card, and a "once" action done by the person on
// that card is not done again by a fire. The card need not be listed
// any more (the person's act may have removed it). For an action that
// does not repeat, instance is ignored.
func (a *App) ReportInstance(action, instance string, input any, data any) (string, error) {
	act := a.g.Action(action)
	if act == nil {
		return "", errs.New("serve: Report: action ", strconv.Quote(action), " is not declared in graph ", strconv.Quote(a.g.ID))
	}
	a.mu.Lock()
	t := a.newTransition(act, PrincipalUser, CloneValue(input), "", act.Card(instance))
	t.reported = true
	a.record(event{kind: evReported, by: PrincipalUser, action: act.ID, transition: t.id})
	a.mu.Unlock()
	a.settle(t.id, statusPerformed, data, "")
	return t.id, nil
}

// principalOr returns p, or def when p is empty or not a principal.
func principalOr(p, def Principal) Principal {
	if validPrincipal(p) {
		return p
	}
	if p == "" {
		return def
	}
	return PrincipalUnknown
}

// warn queues a once-only warning; flushWarns delivers it. Queuing lets
// the port deliver it after releasing its own lock.
func (a *App) warn(code, action, msg string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	key := code + "\x00" + action
	if code == WarnUnguardedFire {
		key = code
	}
	if a.warned[key] {
		return
	}
	a.warned[key] = true
	a.warnQueue = append(a.warnQueue, Warning{Code: code, Message: msg, Action: action})
}

// flushWarns delivers the queued warnings to OnWarn, each under recover;
// call it without the lock.
func (a *App) flushWarns() {
	a.mu.Lock()
	q := a.warnQueue
	a.warnQueue = nil
	fn := a.opts.OnWarn
	a.mu.Unlock()
	if fn == nil {
		return
	}
	for _, w := range q {
		func() {
			defer func() { _ = recover() }()
			fn(w)
		}()
	}
}

// writesKey reports whether an action declaring writes touches key.
func writesKey(writes []string, key string) bool {
	for _, w := range writes {
		if w == key || strings.HasPrefix(key, w+".") || strings.HasPrefix(w, key+".") {
			return true
		}
	}
	return false
}
