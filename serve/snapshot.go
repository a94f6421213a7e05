// The port snapshot: the app session's ask journal as a versioned JSON
// document (format agentwasm.port), written by App.Snapshot and
// Port.Snapshot and read back by AppOptions.Restore and PortOptions.Restore,
// so that a card pending when the page reloads can still be approved or
// declined after it, with the same trust rules.

package serve

import (
	"errors"
	"hash/fnv"
	"strconv"
	"strings"
	"time"
)

// The port snapshot's format name and the newest version this build
// writes. Versions 1..PortSnapshotVersion stay readable.
const (
	PortSnapshotFormat  = "agentwasm.port"
	PortSnapshotVersion = 1
)

// MaxSnapshotSize is the largest port snapshot a restore reads, in bytes.
const MaxSnapshotSize = 8 << 20

// ErrorCodeBadSnapshot is the error code a host reports for a refused
// snapshot ("bad_snapshot"), the same code as a refused session snapshot.
const ErrorCodeBadSnapshot = "bad_snapshot"

// ErrBadSnapshot is what every refused port snapshot's error matches
// (errors.Is); its text says why. A refused restore makes nothing.
var ErrBadSnapshot = errors.New("serve: bad port snapshot")

// snapshotError is a refused snapshot: it says why and matches
// ErrBadSnapshot.
type snapshotError struct{ why string }

func (e *snapshotError) Error() string {
	return "serve: bad port snapshot: " + e.why
}

func (e *snapshotError) Is(target error) bool { return target == ErrBadSnapshot }

func badSnapshot(parts ...string) error {
	return &snapshotError{why: strings.Join(parts, "")}
}

// Digest returns the digest of the graph's canonical JSON: "fnv1a128:" and
// the hex 128-bit FNV-1a hash of the graph document as parsed and written
// back compact with sorted keys, so whitespace and key order do not change
// it. A port snapshot records it, and a restore into another graph is
// refused. It tells graphs apart; it is not a seal (a snapshot is the
// host's own data, trusted as its state is), which is why a hash that
// links no cryptography into the module is enough.
func (g *Graph) Digest() string { return g.digest }

// graphDigest computes Digest from the parsed graph document.
func graphDigest(doc any) string {
	h := fnv.New128a()
	h.Write(AppendValue(nil, doc))
	sum := h.Sum(nil)
	const hexDigits = "0123456789abcdef"
	out := make([]byte, 0, len("fnv1a128:")+2*len(sum))
	out = append(out, "fnv1a128:"...)
	for _, c := range sum {
		out = append(out, hexDigits[c>>4], hexDigits[c&15])
	}
	return string(out)
}

// Snapshot returns the app session's ask journal as one JSON object:
//
//	{"format":"agentwasm.port","version":1,"graph":"fnv1a128:…",
//	 "asks":[{"id":"ask_…","action":"cart.pay","does":"…","input":{…},
//	          "instance"?:"o-1","state":"pending","caller"?:"…",
//	          "askedBy":"agent","answeredBy"?:"person","createdAt":<ms>,
//	          "expiresAt"?:<ms>,"declinedByPerson"?:true,"transition"?:"t-3"}]}
//
// Every ask of the journal is in it, oldest first, in the state it is in:
// pending, approved (with expiresAt, the Unix milliseconds when its
// approval lapses), declined, revoked or used (a restored used or revoked
// ask stays closed; a declined one stays declined). "does" is what its card
// shows; "caller" is the identity of the conversation whose fire raised it
// (absent for one with no identity). Times are Unix milliseconds.
//
// The app's own data (page, state, the event log, transitions) is not in
// it: the app restores its own state and hands it in as AppOptions.State
// and Page. Standing grants (AlwaysApprove) are not in it either: the
// person grants again. A handler still running when it is taken is not in
// it; the ask that backed it is recorded used.
func (a *App) Snapshot() ([]byte, error) { return a.snapshot("", nil) }

// Snapshot is the app session's Snapshot plus the port's own caller
// identity ("caller" at the top), so that a port restored with
// PortOptions.Restore is the same caller as this one: the asks this port's
// own calls raised stay its own.
//
// It also holds the port's open journey, if one is open: its id and which
// of its steps are done ("journey": {"id", "done": [bool per step]}), so
// that after a restore the journey's later steps are ready as they were (a
// step the person approved is not refused as "not ready" because the
// first step ran before the reload).
func (p *Port) Snapshot() ([]byte, error) {
	var open Obj
	p.app.mu.Lock()
	if fr := p.frame; fr != nil {
		if j := p.app.g.Journey(fr.journey); j != nil {
			done := make([]any, len(j.Steps))
			for i := range j.Steps {
				st, _ := p.stepStatus(fr, j, i)
				done[i] = st == stepDone
			}
			open = Obj{{"id", j.ID}, {"done", done}}
		}
	}
	p.app.mu.Unlock()
	return p.app.snapshot(p.caller, open)
}

func (a *App) snapshot(self string, journey Obj) ([]byte, error) {
	a.mu.Lock()
	asks := make([]Obj, 0, len(a.askOrder))
	for _, id := range a.askOrder {
		k := a.asks[id]
		o := Obj{{"id", k.id}, {"action", k.action}}
		if act := a.g.Action(k.action); act != nil && act.Does != "" {
			o = append(o, Field{"does", act.Does})
		}
		if k.input != nil {
			o = append(o, Field{"input", CloneValue(k.input)})
		}
		if k.instance != "" {
			o = append(o, Field{"instance", k.instance})
		}
		o = append(o, Field{"state", k.state})
		if k.caller != "" {
			o = append(o, Field{"caller", k.caller})
		}
		o = append(o, Field{"askedBy", string(k.askedBy)})
		if k.answeredBy != "" {
			o = append(o, Field{"answeredBy", k.answeredBy})
		}
		o = append(o, Field{"createdAt", k.createdAt.UnixMilli()})
		if k.state == askApproved {
			o = append(o, Field{"expiresAt", k.approvedAt.Add(a.opts.ApprovalTTL).UnixMilli()})
		}
		if k.humanNo {
			o = append(o, Field{"declinedByPerson", true})
		}
		if k.transition != "" {
			o = append(o, Field{"transition", k.transition})
		}
		asks = append(asks, o)
	}
	a.mu.Unlock()
	doc := Obj{{"format", PortSnapshotFormat}, {"version", PortSnapshotVersion}, {"graph", a.g.Digest()}}
	if self != "" {
		doc = append(doc, Field{"caller", self})
	}
	if journey != nil {
		doc = append(doc, Field{"journey", journey})
	}
	doc = append(doc, Field{"asks", asks})
	return AppendValue(nil, doc), nil
}

// portSnapshot is a snapshot read and checked against a graph.
type portSnapshot struct {
	caller  string
	asks    []*ask
	journey string // the open journey, "" for none
	done    []bool // per step of journey: done before the snapshot
}

// snapshotStates are the ask states a snapshot may hold.
var snapshotStates = map[string]bool{askPending: true, askApproved: true, askDeclined: true, askRevoked: true, askUsed: true}

// readSnapshot parses data and checks it belongs to graph g; ttl turns an
// approved ask's expiresAt back into its approval time. The error matches
// ErrBadSnapshot and says why.
func readSnapshot(data []byte, g *Graph, ttl time.Duration) (s *portSnapshot, err error) {
	if len(data) > MaxSnapshotSize {
		return nil, badSnapshot(strconv.Itoa(len(data)), " bytes is more than the ", strconv.Itoa(MaxSnapshotSize), " allowed")
	}
	v, err := ParseValue(data)
	if err != nil {
		return nil, badSnapshot("not JSON (", strings.TrimPrefix(err.Error(), "serve: json: "), "); pass the object Snapshot returned, unchanged")
	}
	top, ok := v.(map[string]any)
	if !ok {
		return nil, badSnapshot("must be a JSON object, got ", jsonKind(v))
	}
	if f, _ := top["format"].(string); f != PortSnapshotFormat {
		return nil, badSnapshot("format is ", quoteAny(top["format"]), ", not ", strconv.Quote(PortSnapshotFormat), "; pass a port's snapshot (a session's snapshot goes to the session)")
	}
	ver, ok := top["version"].(float64)
	if !ok || ver != float64(int(ver)) || ver < 1 || ver > PortSnapshotVersion {
		return nil, badSnapshot("version ", quoteAny(top["version"]), " is unknown; this build reads versions 1 to ", strconv.Itoa(PortSnapshotVersion))
	}
	if d, _ := top["graph"].(string); d != g.Digest() {
		return nil, badSnapshot("it was taken over another graph (", quoteAny(top["graph"]), ", this one is ", strconv.Quote(g.Digest()), "); restore it into a port over the same graph")
	}
	s = &portSnapshot{}
	if c, present := top["caller"]; present {
		if s.caller, ok = c.(string); !ok {
			return nil, badSnapshot("caller must be a string, got ", jsonKind(c))
		}
	}
	if jv, present := top["journey"]; present {
		if err := s.readJourney(jv, g); err != nil {
			return nil, err
		}
	}
	list, ok := top["asks"].([]any)
	if !ok {
		return nil, badSnapshot("asks must be an array, got ", jsonKind(top["asks"]))
	}
	if len(list) > 2*maxAsks {
		return nil, badSnapshot(strconv.Itoa(len(list)), " asks is more than the ", strconv.Itoa(2*maxAsks), " a journal holds")
	}
	seen := map[string]bool{}
	for i, item := range list {
		k, err := readSnapshotAsk(item, g, ttl)
		if err != nil {
			return nil, badSnapshot("asks[", strconv.Itoa(i), "]: ", err.Error())
		}
		if seen[k.id] {
			return nil, badSnapshot("asks[", strconv.Itoa(i), "]: id ", strconv.Quote(k.id), " appears twice")
		}
		seen[k.id] = true
		s.asks = append(s.asks, k)
	}
	return s, nil
}

// readJourney reads a snapshot's open journey: an id the graph has, and a
// done flag for each of its steps.
func (s *portSnapshot) readJourney(v any, g *Graph) error {
	m, ok := v.(map[string]any)
	if !ok {
		return badSnapshot("journey must be an object, got ", jsonKind(v))
	}
	id, _ := m["id"].(string)
	j := g.Journey(id)
	if j == nil {
		return badSnapshot("journey ", quoteAny(m["id"]), " is not one of the graph's journeys")
	}
	done, ok := m["done"].([]any)
	if !ok || len(done) != len(j.Steps) {
		return badSnapshot("journey ", strconv.Quote(id), "'s done must be an array of one boolean per step (", strconv.Itoa(len(j.Steps)), ")")
	}
	s.journey, s.done = id, make([]bool, len(done))
	for i, d := range done {
		if s.done[i], ok = d.(bool); !ok {
			return badSnapshot("journey ", strconv.Quote(id), "'s done[", strconv.Itoa(i), "] must be a boolean, got ", jsonKind(d))
		}
	}
	return nil
}

// readSnapshotAsk reads one ask of a snapshot.
func readSnapshotAsk(item any, g *Graph, ttl time.Duration) (*ask, error) {
	m, ok := item.(map[string]any)
	if !ok {
		return nil, errors.New("must be an object, got " + jsonKind(item))
	}
	str := func(key string, required bool) (string, error) {
		v, present := m[key]
		if !present && !required {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", errors.New(key + " must be a string, got " + jsonKind(v))
		}
		return s, nil
	}
	ms := func(key string) (time.Time, error) {
		n, ok := m[key].(float64)
		if !ok || n != float64(int64(n)) {
			return time.Time{}, errors.New(key + " must be an integer of Unix milliseconds, got " + jsonKind(m[key]))
		}
		return time.UnixMilli(int64(n)), nil
	}
	k := &ask{}
	var err error
	var by string
	for _, f := range []struct {
		key      string
		dst      *string
		required bool
	}{{"id", &k.id, true}, {"action", &k.action, true}, {"instance", &k.instance, false}, {"state", &k.state, true},
		{"caller", &k.caller, false}, {"askedBy", &by, true}, {"answeredBy", &k.answeredBy, false}, {"transition", &k.transition, false}} {
		if *f.dst, err = str(f.key, f.required); err != nil {
			return nil, err
		}
	}
	if !strings.HasPrefix(k.id, askPrefix) || len(k.id) <= len(askPrefix) {
		return nil, errors.New("id " + strconv.Quote(k.id) + " is not an ask id (" + askPrefix + "…)")
	}
	if g.Action(k.action) == nil {
		return nil, errors.New("action " + strconv.Quote(k.action) + " is not declared in graph " + strconv.Quote(g.ID))
	}
	if !snapshotStates[k.state] {
		return nil, errors.New("state " + strconv.Quote(k.state) + " is not pending, approved, declined, revoked or used")
	}
	if k.askedBy = Principal(by); !validPrincipal(k.askedBy) {
		return nil, errors.New("askedBy " + strconv.Quote(by) + " is not user, agent, system or unknown")
	}
	if k.createdAt, err = ms("createdAt"); err != nil {
		return nil, err
	}
	if k.state == askApproved {
		exp, err := ms("expiresAt")
		if err != nil {
			return nil, err
		}
		k.approvedAt = exp.Add(-ttl) // the ask lapses when it did before
	}
	if v, present := m["declinedByPerson"]; present {
		if k.humanNo, ok = v.(bool); !ok {
			return nil, errors.New("declinedByPerson must be a boolean, got " + jsonKind(v))
		}
	}
	k.input = m["input"]
	return k, nil
}

// quoteAny shows a snapshot member in an error: a string quoted, any other
// value as its JSON, cut short.
func quoteAny(v any) string {
	if v == nil {
		return "missing"
	}
	b := AppendValue(nil, v)
	if len(b) > 80 {
		b = append(b[:77:77], "..."...)
	}
	return string(b)
}

// restoreAsks puts a read snapshot's asks in the new app's journal; call
// it before the app is shared.
func (a *App) restoreAsks(s *portSnapshot) {
	for _, k := range s.asks {
		a.asks[k.id] = k
		a.askOrder = append(a.askOrder, k.id)
	}
}
