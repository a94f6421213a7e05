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
	})
	b.Run("NewPort", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = NewPort(app, PortOptions{})
		}
	})
}
