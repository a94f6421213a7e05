// The graph: the pages, actions and journeys an app declares as JSON,
// parsed and validated into Go values the app session and the port serve.

package serve

import (
	"errors"
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/errs"
)

// MaxGraphSize is the largest graph document ParseGraph accepts, in bytes.
const MaxGraphSize = 8 << 20

// Graph is a validated app graph: its pages, actions and journeys in the
// order they were declared. Treat it as read-only once built.
type Graph struct {
	ID       string
	Pages    []Page
	Actions  []Action
	Journeys []Journey
	// RouteTo turns on whats_here's routeTo argument (the graph's
	// "routeTo": true): the way to a page along declared goTo edges.
	RouteTo bool

	pageIdx, actionIdx, journeyIdx map[string]int
	digest                         string // Digest
}

// Page is a place the app can be on. Areas holds the full paths of its
// nested areas in declared order, depth first: "cart.summary",
// "cart.summary.totals".
type Page struct {
	ID    string
	Areas []string
	// Repeats are the page's repeating areas ("repeats": true): lists of
	// cards whose actions act on one card at a time, named by an instance
	// key.
	Repeats []Repeat
}

// Repeat is a repeating area: Area is its full path; InstancesFrom, when
// set, is the state key whose array lists the cards' keys (else the host
// says which cards exist with SetInstances).
type Repeat struct {
	Area, InstancesFrom string
}

// Action is something that can be done on a page. ID is "<page>.<name>"
// or "<page>.<area path>.<name>" with <page> equal to On. Does is the
// authored sentence; GoTo the page it claims to lead to ("" = stays);
// Writes and Reads are state keys. Input is nil when the action takes no
// input ("none" or absent). Confirm marks it high-effect. When decides if
// it is offered at all, EnabledWhen if an offered action is enabled; nil
// guards always hold.
//
// The second version's fields are all optional: Repeats is the path of
// the repeating area the action is in (its own area or the nearest
// enclosing one; "" when none), so each fire names an instance; Verify is
// a guard that should hold once the action is performed; Concurrency is
// "once" (never a second performed fire) or "single-flight" (no fire
// while one is pending); Freshness "track" makes its whats_here row carry
// the declared keys others changed (staleReads, staleWrites), and "cite"
// also makes each fire cite the offerId of its row.
type Action struct {
	ID, Does, On, GoTo string
	Writes, Reads      []string
	Input              *Schema
	Confirm            bool
	When, EnabledWhen  *Guard

	Repeats     string
	Verify      *Guard
	Concurrency string
	Freshness   string
}

// The values of an action's concurrency and freshness fields.
const (
	ConcurrencyOnce         = "once"
	ConcurrencySingleFlight = "single-flight"
	FreshnessTrack          = "track"
	FreshnessCite           = "cite"
)

// Journey is an ordered list of action ids (Steps[0] is the entry) with
// an authored Does and an optional Precondition (nil holds).
type Journey struct {
	ID, Does     string
	Steps        []string
	Precondition *Guard
}

// ParseGraph parses and validates a graph document (at most MaxGraphSize
// bytes):
//
//	{"id":"shop",
//	 "pages":[{"id":"cart","areas":[{"id":"summary","areas":[...]}]}],
//	 "actions":[{"id":"cart.checkout","does":"...","on":"cart","goTo":"checkout",
//	             "writes":["order.id"],"reads":["cart.items"],"input":{schema} | "none",
//	             "confirm":true,"when":{guard},"enabledWhen":{guard}}],
//	 "journeys":[{"id":"buy","does":"...","steps":["cart.checkout"],"precondition":{guard}}]}
//
// The second version adds optional fields: an area may say "repeats": true
// (with "instancesFrom": "<state key>"), an action "verify": {guard},
// "concurrency": "once" | "single-flight" and "freshness": "track" | "cite", and the
// graph "routeTo": true. A graph without them is served exactly as before.
// Repeating areas do not nest.
//
// Ids (graph, pages, areas, actions, journeys) must match [A-Za-z0-9_.-]+
// and be unique in their kind. Every action's on (and goTo, when given)
// must be a declared page, and its id must start with its page (or one of
// that page's area paths) and a dot. A journey needs at least one step,
// each an action id, none twice. Schemas and guards must compile. Fields
// this version does not know are ignored; a known field of the wrong JSON
// type is an error. Errors start with "serve: " and name the offending id:
//
//	serve: action "cart.pay": page "nope" is not declared
func ParseGraph(data []byte) (g *Graph, err error) {
	defer func() {
		if r := recover(); r != nil {
			g, err = nil, errs.New("serve: graph: internal error: ", errs.Text(r))
		}
	}()
	if len(data) > MaxGraphSize {
		return nil, errs.New("serve: graph: ", strconv.Itoa(len(data)), " bytes is more than the ", strconv.Itoa(MaxGraphSize), " allowed")
	}
	v, err := ParseValue(data)
	if err != nil {
		return nil, errors.New("serve: graph: " + strings.TrimPrefix(err.Error(), "serve: "))
	}
	top, ok := v.(map[string]any)
	if !ok {
		return nil, errs.New("serve: graph: must be a JSON object, got ", jsonKind(v))
	}
	g = &Graph{
		digest:     graphDigest(top),
		pageIdx:    map[string]int{},
		actionIdx:  map[string]int{},
		journeyIdx: map[string]int{},
	}
	f := fields{m: top, who: "graph"}
	if g.ID, err = f.id(); err != nil {
		return nil, err
	}
	if g.RouteTo, err = f.boolean("routeTo"); err != nil {
		return nil, err
	}
	pages, err := f.objects("pages")
	if err != nil {
		return nil, err
	}
	for i, pm := range pages {
		p, err := parsePage(pm, i)
		if err != nil {
			return nil, err
		}
		if _, dup := g.pageIdx[p.ID]; dup {
			return nil, errs.New("serve: page ", strconv.Quote(p.ID), " is declared twice")
		}
		g.pageIdx[p.ID] = len(g.Pages)
		g.Pages = append(g.Pages, p)
	}
	actions, err := f.objects("actions")
	if err != nil {
		return nil, err
	}
	for i, am := range actions {
		a, err := g.parseAction(am, i)
		if err != nil {
			return nil, err
		}
		if _, dup := g.actionIdx[a.ID]; dup {
			return nil, errs.New("serve: action ", strconv.Quote(a.ID), " is declared twice")
		}
		g.actionIdx[a.ID] = len(g.Actions)
		g.Actions = append(g.Actions, a)
	}
	journeys, err := f.objects("journeys")
	if err != nil {
		return nil, err
	}
	for i, jm := range journeys {
		j, err := g.parseJourney(jm, i)
		if err != nil {
			return nil, err
		}
		if _, dup := g.journeyIdx[j.ID]; dup {
			return nil, errs.New("serve: journey ", strconv.Quote(j.ID), " is declared twice")
		}
		g.journeyIdx[j.ID] = len(g.Journeys)
		g.Journeys = append(g.Journeys, j)
	}
	return g, nil
}

func parsePage(m map[string]any, i int) (Page, error) {
	f := fields{m: m, who: "pages[" + strconv.Itoa(i) + "]"}
	id, err := f.id()
	if err != nil {
		return Page{}, err
	}
	p := Page{ID: id}
	f.who = "page " + strconv.Quote(id)
	seen := map[string]bool{}
	if err := collectAreas(f, id, &p, seen, 0, false); err != nil {
		return Page{}, err
	}
	return p, nil
}

// collectAreas appends the area paths declared under f (depth first) to
// p.Areas, and the repeating ones to p.Repeats; inRepeat says an
// enclosing area repeats.
func collectAreas(f fields, prefix string, p *Page, seen map[string]bool, depth int, inRepeat bool) error {
	if depth > 32 {
		return errs.New("serve: ", f.who, ": areas nest deeper than 32")
	}
	areas, err := f.objects("areas")
	if err != nil {
		return err
	}
	for i, am := range areas {
		af := fields{m: am, who: f.who + ": areas[" + strconv.Itoa(i) + "]"}
		id, err := af.id()
		if err != nil {
			return err
		}
		path := prefix + "." + id
		if seen[path] {
			return errs.New("serve: ", f.who, ": area ", strconv.Quote(path), " is declared twice")
		}
		seen[path] = true
		p.Areas = append(p.Areas, path)
		af.who = "area " + strconv.Quote(path)
		repeats, err := af.boolean("repeats")
		if err != nil {
			return err
		}
		from, err := af.str("instancesFrom")
		if err != nil {
			return err
		}
		switch {
		case from != "" && !repeats:
			return errs.New("serve: ", af.who, ": instancesFrom needs \"repeats\": true")
		case repeats && inRepeat:
			return errs.New("serve: ", af.who, ": repeating areas do not nest; an instance key names one card")
		case repeats:
			p.Repeats = append(p.Repeats, Repeat{Area: path, InstancesFrom: from})
		}
		if err := collectAreas(af, path, p, seen, depth+1, inRepeat || repeats); err != nil {
			return err
		}
	}
	return nil
}

func (g *Graph) parseAction(m map[string]any, i int) (Action, error) {
	f := fields{m: m, who: "actions[" + strconv.Itoa(i) + "]"}
	id, err := f.id()
	if err != nil {
		return Action{}, err
	}
	a := Action{ID: id}
	f.who = "action " + strconv.Quote(id)
	if a.Does, err = f.str("does"); err != nil {
		return Action{}, err
	}
	if a.On, err = f.str("on"); err != nil {
		return Action{}, err
	}
	if a.On == "" {
		return Action{}, errs.New("serve: ", f.who, ": missing \"on\" (the page it is on)")
	}
	page := g.Page(a.On)
	if page == nil {
		return Action{}, errs.New("serve: ", f.who, ": page ", strconv.Quote(a.On), " is not declared")
	}
	if err := checkActionPrefix(a.ID, page); err != nil {
		return Action{}, errs.New("serve: ", f.who, ": ", err.Error())
	}
	if a.GoTo, err = f.str("goTo"); err != nil {
		return Action{}, err
	}
	if a.GoTo != "" && g.Page(a.GoTo) == nil {
		return Action{}, errs.New("serve: ", f.who, ": goTo page ", strconv.Quote(a.GoTo), " is not declared")
	}
	if a.Writes, err = f.strings("writes"); err != nil {
		return Action{}, err
	}
	if a.Reads, err = f.strings("reads"); err != nil {
		return Action{}, err
	}
	if raw, ok := m["input"]; ok && raw != nil && raw != "none" {
		if s, isStr := raw.(string); isStr {
			return Action{}, errs.New("serve: ", f.who, ": \"input\" must be a schema object or \"none\", got ", strconv.Quote(s))
		}
		s, err := compileSchema(raw)
		if err != nil {
			return Action{}, errs.New("serve: ", f.who, ": input schema: ", err.Error())
		}
		a.Input = s
	}
	if a.Confirm, err = f.boolean("confirm"); err != nil {
		return Action{}, err
	}
	if a.When, err = f.guard("when"); err != nil {
		return Action{}, err
	}
	if a.EnabledWhen, err = f.guard("enabledWhen"); err != nil {
		return Action{}, err
	}
	if a.Verify, err = f.guard("verify"); err != nil {
		return Action{}, err
	}
	if a.Concurrency, err = f.str("concurrency"); err != nil {
		return Action{}, err
	}
	if c := a.Concurrency; c != "" && c != ConcurrencyOnce && c != ConcurrencySingleFlight {
		return Action{}, errs.New("serve: ", f.who, ": concurrency ", strconv.Quote(c), " is not a mode; use \"once\" or \"single-flight\"")
	}
	if a.Freshness, err = f.str("freshness"); err != nil {
		return Action{}, err
	}
	if a.Freshness != "" && a.Freshness != FreshnessTrack && a.Freshness != FreshnessCite {
		return Action{}, errs.New("serve: ", f.who, ": freshness ", strconv.Quote(a.Freshness), " is not a mode; use \"track\" or \"cite\"")
	}
	a.Repeats = repeatingArea(a.ID, page)
	return a, nil
}

// Card is the instance a fire of the action acts on: instance for an
// action in a repeating area, "" for any other (which acts on no card).
func (a *Action) Card(instance string) string {
	if a.Repeats == "" {
		return ""
	}
	return instance
}

// repeatingArea is the repeating area an action of page p is in: its own
// area or the nearest enclosing one; "" when none.
func repeatingArea(id string, p *Page) string {
	best := ""
	for _, r := range p.Repeats {
		if strings.HasPrefix(id, r.Area+".") && len(r.Area) > len(best) {
			best = r.Area
		}
	}
	return best
}

// Repeat returns the repeating area with the given path, or nil.
func (g *Graph) Repeat(area string) *Repeat {
	if g == nil {
		return nil
	}
	for i := range g.Pages {
		for j := range g.Pages[i].Repeats {
			if g.Pages[i].Repeats[j].Area == area {
				return &g.Pages[i].Repeats[j]
			}
		}
	}
	return nil
}

// usesInstances reports whether any action acts on repeating cards.
func (g *Graph) usesInstances() bool {
	for i := range g.Actions {
		if g.Actions[i].Repeats != "" {
			return true
		}
	}
	return false
}

// usesOffers reports whether any action requires an offer citation.
func (g *Graph) usesOffers() bool {
	for i := range g.Actions {
		if g.Actions[i].Freshness == FreshnessCite {
			return true
		}
	}
	return false
}

// checkActionPrefix checks that id is "<page>.<name>" or
// "<page>.<area path>.<name>".
func checkActionPrefix(id string, p *Page) error {
	rest, ok := strings.CutPrefix(id, p.ID+".")
	if !ok || rest == "" {
		return errs.New("id must be ", strconv.Quote(p.ID+"."), " followed by a name (it is on page ", strconv.Quote(p.ID), ")")
	}
	dot := strings.LastIndexByte(rest, '.')
	if dot < 0 {
		return nil
	}
	area := p.ID + "." + rest[:dot]
	for _, a := range p.Areas {
		if a == area {
			if rest[dot+1:] == "" {
				break
			}
			return nil
		}
	}
	return errs.New("id must be <page>.<name> or <page>.<area>.<name>, and ", strconv.Quote(rest[:dot]), " is not an area of page ", strconv.Quote(p.ID))
}

func (g *Graph) parseJourney(m map[string]any, i int) (Journey, error) {
	f := fields{m: m, who: "journeys[" + strconv.Itoa(i) + "]"}
	id, err := f.id()
	if err != nil {
		return Journey{}, err
	}
	j := Journey{ID: id}
	f.who = "journey " + strconv.Quote(id)
	if j.Does, err = f.str("does"); err != nil {
		return Journey{}, err
	}
	if j.Steps, err = f.strings("steps"); err != nil {
		return Journey{}, err
	}
	if len(j.Steps) == 0 {
		return Journey{}, errs.New("serve: ", f.who, ": has no steps")
	}
	seen := map[string]bool{}
	for _, s := range j.Steps {
		if g.Action(s) == nil {
			return Journey{}, errs.New("serve: ", f.who, ": step ", strconv.Quote(s), " is not a declared action")
		}
		if seen[s] {
			return Journey{}, errs.New("serve: ", f.who, ": step ", strconv.Quote(s), " appears twice")
		}
		seen[s] = true
	}
	if j.Precondition, err = f.guard("precondition"); err != nil {
		return Journey{}, err
	}
	return j, nil
}

// fields reads typed fields of one JSON object, naming it (who) in errors.
type fields struct {
	m   map[string]any
	who string
}

func (f fields) id() (string, error) {
	raw, ok := f.m["id"]
	if !ok {
		return "", errs.New("serve: ", f.who, ": missing \"id\"")
	}
	s, ok := raw.(string)
	if !ok {
		return "", errs.New("serve: ", f.who, ": \"id\" must be a string, got ", jsonKind(raw))
	}
	if !ValidID(s) {
		return "", errs.New("serve: ", f.who, ": id ", strconv.Quote(s), " must be non-empty and use only A-Z a-z 0-9 _ . -")
	}
	return s, nil
}

func (f fields) str(name string) (string, error) {
	raw, ok := f.m[name]
	if !ok || raw == nil {
		return "", nil
	}
	s, ok := raw.(string)
	if !ok {
		return "", errs.New("serve: ", f.who, ": ", strconv.Quote(name), " must be a string, got ", jsonKind(raw))
	}
	return s, nil
}

func (f fields) boolean(name string) (bool, error) {
	raw, ok := f.m[name]
	if !ok || raw == nil {
		return false, nil
	}
	b, ok := raw.(bool)
	if !ok {
		return false, errs.New("serve: ", f.who, ": ", strconv.Quote(name), " must be true or false, got ", jsonKind(raw))
	}
	return b, nil
}

func (f fields) strings(name string) ([]string, error) {
	raw, ok := f.m[name]
	if !ok || raw == nil {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, errs.New("serve: ", f.who, ": ", strconv.Quote(name), " must be an array of strings, got ", jsonKind(raw))
	}
	out := make([]string, 0, len(list))
	for i, e := range list {
		s, ok := e.(string)
		if !ok || s == "" {
			return nil, errs.New("serve: ", f.who, ": ", name, "[", strconv.Itoa(i), "] must be a non-empty string, got ", jsonKind(e))
		}
		out = append(out, s)
	}
	return out, nil
}

func (f fields) objects(name string) ([]map[string]any, error) {
	raw, ok := f.m[name]
	if !ok || raw == nil {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, errs.New("serve: ", f.who, ": ", strconv.Quote(name), " must be an array of objects, got ", jsonKind(raw))
	}
	out := make([]map[string]any, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, errs.New("serve: ", f.who, ": ", name, "[", strconv.Itoa(i), "] must be an object, got ", jsonKind(e))
		}
		out = append(out, m)
	}
	return out, nil
}

func (f fields) guard(name string) (*Guard, error) {
	raw, ok := f.m[name]
	if !ok || raw == nil {
		return nil, nil
	}
	g, err := parseGuard(raw)
	if err != nil {
		return nil, errs.New("serve: ", f.who, ": ", name, ": ", err.Error())
	}
	return g, nil
}

// ValidID reports whether s is usable as a graph, page, area, action or
// journey id: non-empty, only ASCII letters, digits, '_', '.' and '-'.
func ValidID(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// Action returns the action with the given id, or nil. A nil *Graph has
// none.
func (g *Graph) Action(id string) *Action {
	if g == nil {
		return nil
	}
	if g.actionIdx != nil {
		if i, ok := g.actionIdx[id]; ok && i < len(g.Actions) && g.Actions[i].ID == id {
			return &g.Actions[i]
		}
	}
	for i := range g.Actions {
		if g.Actions[i].ID == id {
			return &g.Actions[i]
		}
	}
	return nil
}

// Journey returns the journey with the given id, or nil. A nil *Graph has
// none.
func (g *Graph) Journey(id string) *Journey {
	if g == nil {
		return nil
	}
	if g.journeyIdx != nil {
		if i, ok := g.journeyIdx[id]; ok && i < len(g.Journeys) && g.Journeys[i].ID == id {
			return &g.Journeys[i]
		}
	}
	for i := range g.Journeys {
		if g.Journeys[i].ID == id {
			return &g.Journeys[i]
		}
	}
	return nil
}

// Page returns the page with the given id, or nil. A nil *Graph has none.
func (g *Graph) Page(id string) *Page {
	if g == nil {
		return nil
	}
	if g.pageIdx != nil {
		if i, ok := g.pageIdx[id]; ok && i < len(g.Pages) && g.Pages[i].ID == id {
			return &g.Pages[i]
		}
	}
	for i := range g.Pages {
		if g.Pages[i].ID == id {
			return &g.Pages[i]
		}
	}
	return nil
}
