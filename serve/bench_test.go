// Benchmarks of the port: a whats_here call, a fire through do_action, and
// the tool array.

package serve

import (
	"context"
	"testing"
)

func BenchmarkCall(b *testing.B) {
	app := fixtureApp(b, fixtureGraph(57))
	p, err := NewPort(app, PortOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("whats_here", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p.Call(ctx, "fixture.whats_here", nil)
		}
	})
	b.Run("unknown_tool", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p.Call(ctx, "fixture.nope", []byte(`{}`))
		}
	})
	b.Run("do_action", func(b *testing.B) {
		b.ReportAllocs()
		args := []byte(`{"action":"p00.main.j00_start","input":{"note":"hi"}}`)
		for b.Loop() {
			r := p.Call(ctx, "fixture.do_action", args)
			if id := r.TransitionID(); id != "" {
				_, _ = app.WaitSettled(ctx, id)
			}
			_ = app.Navigate("p00", PrincipalUser)
		}
	})
}

func BenchmarkToolsJSON(b *testing.B) {
	app := fixtureApp(b, fixtureGraph(57))
	b.Run("ToolsJSON", func(b *testing.B) {
		p, _ := NewPort(app, PortOptions{})
		b.ReportAllocs()
		for b.Loop() {
			_ = p.ToolsJSON()
		}
		// The array's length, for make bench's label (BENCHMARKS.md).
		b.ReportMetric(float64(len(p.ToolsJSON())), "array-B")
	})
	b.Run("NewPort", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = NewPort(app, PortOptions{})
		}
	})
}

// BenchmarkCallOneAction is the native baseline of the Node benchmark's
// port calls (web/bench/chat.bench.mjs): the same one-action graph, the
// same calls, a Go handler where Node has a JavaScript one. make bench
// writes each JavaScript figure's ratio to it.
func BenchmarkCallOneAction(b *testing.B) {
	g, err := ParseGraph([]byte(`{"id":"bench","pages":[{"id":"home"}],
		"actions":[{"id":"home.add","does":"Add one","on":"home","input":{"type":"object","properties":{"n":{"type":"integer"}}}}],
		"journeys":[{"id":"count","does":"Count up","steps":["home.add"]}]}`))
	if err != nil {
		b.Fatal(err)
	}
	app, err := NewApp(g, AppOptions{Handlers: map[string]Handler{
		"home.add": func(_ context.Context, c HandlerCall) (any, error) {
			in, _ := c.Input.(map[string]any)
			return map[string]any{"n": in["n"]}, nil
		},
	}})
	if err != nil {
		b.Fatal(err)
	}
	p, err := NewPort(app, PortOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("whats_here", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p.Call(ctx, "bench.whats_here", nil)
		}
	})
	b.Run("do_action", func(b *testing.B) {
		b.ReportAllocs()
		args := []byte(`{"action":"home.add","input":{"n":1}}`)
		for b.Loop() {
			r := p.Call(ctx, "bench.do_action", args)
			if id := r.TransitionID(); id != "" {
				_, _ = app.WaitSettled(ctx, id)
			} else {
				b.Fatal("do_action fired nothing: ", string(r.JSON()))
			}
		}
	})
}
