// Test helpers for the app session and port tests: the shop graph, an app
// with controllable handlers, and a call helper that checks the result
// invariants of the spec on every result.

package serve

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const appShopGraph = `{"id":"shop",
 "pages":[{"id":"home"},{"id":"cart","areas":[{"id":"summary"}]},{"id":"checkout"},{"id":"done","areas":[{"id":"footer"}]}],
 "actions":[
  {"id":"home.browse","does":"Open the cart.","on":"home","goTo":"cart"},
  {"id":"home.search","does":"Search the catalogue.","on":"home",
   "input":{"type":"object","properties":{"q":{"type":"string","minLength":1}},"required":["q"]}},
  {"id":"home.admin","does":"Open the admin panel.","on":"home","when":{"key":"role","op":"eq","value":"admin"}},
  {"id":"cart.summary.apply_coupon","does":"Apply a coupon.","on":"cart","input":{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}},
  {"id":"cart.checkout","does":"Go to checkout.","on":"cart","goTo":"checkout","writes":["order.draft"],
   "when":{"key":"cart.items","op":"nonEmpty"}},
  {"id":"cart.clear","does":"Empty the cart.","on":"cart","confirm":true,"writes":["cart.items"],
   "enabledWhen":{"key":"cart.locked","op":"ne","value":true}},
  {"id":"checkout.pay","does":"Pay for the order.","on":"checkout","goTo":"done","confirm":true,"writes":["order.id"],
   "input":{"type":"object","properties":{"amount":{"type":"number"}},"required":["amount"]}},
  {"id":"checkout.cancel","does":"Back to the cart.","on":"checkout","goTo":"cart"},
  {"id":"done.home","does":"Back home.","on":"done","goTo":"home"},
  {"id":"done.footer.home","does":"Home from the footer.","on":"done","goTo":"home"},
  {"id":"done.unwired","does":"Not wired.","on":"done"}
 ],
 "journeys":[
  {"id":"buy","does":"Check out and pay for the cart.","steps":["cart.checkout","checkout.pay"]},
  {"id":"browse","does":"Open the cart and go to checkout.","steps":["home.browse","cart.checkout"]},
  {"id":"find","does":"Search, then open the cart.","steps":["home.search","home.browse"]},
  {"id":"admin","does":"Administer the shop.","steps":["home.admin","home.browse"]},
  {"id":"vip","does":"The VIP lane.","steps":["home.browse","cart.checkout"],"precondition":{"key":"vip","op":"truthy"}}
 ]}`

func mustGraph(t testing.TB, src string) *Graph {
	t.Helper()
	g, err := ParseGraph([]byte(src))
	require.NoError(t, err)
	return g
}

func ptrBool(b bool) *bool { return &b }

// shop is an app over appShopGraph with handlers that settle at once, except
// the ones listed in block, which wait for their channel.
type shop struct {
	app      *App
	mu       sync.Mutex
	warnings []Warning
	calls    []HandlerCall
	block    map[string]chan struct{}
	clock    time.Time
}

func (s *shop) now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clock
}

func (s *shop) advance(d time.Duration) {
	s.mu.Lock()
	s.clock = s.clock.Add(d)
	s.mu.Unlock()
}

func (s *shop) warns() []Warning {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Warning(nil), s.warnings...)
}

func (s *shop) handlerCalls() []HandlerCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]HandlerCall(nil), s.calls...)
}

func newShop(t testing.TB, opts AppOptions, block ...string) *shop {
	t.Helper()
	s := &shop{block: map[string]chan struct{}{}, clock: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	for _, b := range block {
		s.block[b] = make(chan struct{})
	}
	g := mustGraph(t, appShopGraph)
	h := func(ctx context.Context, c HandlerCall) (any, error) {
		s.mu.Lock()
		s.calls = append(s.calls, c)
		ch := s.block[c.Action]
		s.mu.Unlock()
		if ch != nil {
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		switch c.Action {
		case "cart.checkout":
			return map[string]any{"order.draft": true}, nil
		case "checkout.pay":
			return map[string]any{"order": map[string]any{"id": "o-1"}}, nil
		case "cart.clear":
			return map[string]any{"cart.items": []any{}}, nil
		}
		return map[string]any{"ok": true}, nil
	}
	if opts.Handlers == nil {
		opts.Handlers = map[string]Handler{}
		for _, a := range g.Actions {
			if a.ID != "done.unwired" {
				opts.Handlers[a.ID] = h
			}
		}
	}
	if opts.Now == nil {
		opts.Now = s.now
	}
	if opts.OnWarn == nil {
		opts.OnWarn = func(w Warning) {
			s.mu.Lock()
			s.warnings = append(s.warnings, w)
			s.mu.Unlock()
		}
	}
	if opts.State == nil {
		opts.State = State{"cart.items": []any{"apple"}}
	}
	app, err := NewApp(g, opts)
	require.NoError(t, err)
	s.app = app
	return s
}

func (s *shop) release(action string) { close(s.block[action]) }

func (s *shop) port(t testing.TB, opts PortOptions) *Port {
	t.Helper()
	p, err := NewPort(s.app, opts)
	require.NoError(t, err)
	return p
}

// closed judgment vocabulary of the spec.
var judgments = map[string]bool{
	"navigate-or-wait": true, "one-ready-step": true, "needs-choice": true, "done": true,
	"blocked": true, "error": true, "rejected": true, "needs-confirm": true, "declined": true,
	"still-pending": true, "awaiting-human": true, "approved-not-yet-done": true,
	"approval-no-longer-valid": true, "approval-withdrawn": true,
}

// call calls the port and checks the invariants every result keeps; it
// returns the result decoded for assertions.
func pcall(t testing.TB, p *Port, name string, args string) (Result, map[string]any) {
	t.Helper()
	var raw []byte
	if args != "" {
		raw = []byte(args)
	}
	r := p.Call(context.Background(), name, raw)
	m := checkResult(t, r)
	return r, m
}

func checkResult(t testing.TB, r Result) map[string]any {
	t.Helper()
	js := r.JSON()
	var m map[string]any
	require.NoError(t, json.Unmarshal(js, &m), "result is a JSON object: %s", js)
	if j, ok := m["judgment"]; ok {
		require.True(t, judgments[j.(string)], "judgment %v in the closed set: %s", j, js)
	}
	if _, ok := m["reason"]; ok {
		require.NotEmpty(t, m["why"], "a reason comes with a why: %s", js)
	}
	switch m["judgment"] {
	case "needs-confirm", "declined", "rejected", "blocked", "error", "awaiting-human",
		"approved-not-yet-done", "approval-no-longer-valid", "approval-withdrawn":
		require.NotContains(t, m, "transitionId", "a paused or refused result carries no transitionId: %s", js)
	}
	if m["judgment"] == "needs-confirm" {
		require.Equal(t, false, m["performed"], "needs-confirm says performed:false: %s", js)
	}
	if m["ok"] == false {
		require.NotContains(t, m, "transitionId", "%s", js)
	}
	if m["judgment"] != nil && r.Reason() != "UNKNOWN_TOOL" && r.Reason() != ReasonInternal {
		require.False(t, r.IsError(), "%s", js)
	}
	return m
}

func waitSettled(t testing.TB, app *App, id string) TransitionInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info, err := app.WaitSettled(ctx, id)
	require.NoError(t, err)
	return info
}

var errBoom = errors.New("boom")
