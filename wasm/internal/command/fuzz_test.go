//go:build !js && !wasip1

package command_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/wasm/internal/command"
)

// fuzzGraph is a small graph for the port commands.
const fuzzGraph = `{"id":"g","pages":[{"id":"p"},{"id":"q"}],"actions":[{"id":"p.go","does":"Go","on":"p","goTo":"q","confirm":true,"input":{"type":"object","properties":{"n":{"type":"integer"}}}}],"journeys":[{"id":"j","does":"Go there","steps":["p.go"]}]}`

// FuzzCall sends arbitrary bytes as commands: the Runtime never panics and
// always answers one JSON object that says ok or carries an error code.
func FuzzCall(f *testing.F) {
	for _, s := range []string{
		`{"op":"version"}`,
		`{"op":"session.create","options":{"tools":[{"name":"t"}],"maxToolRounds":2}}`,
		`{"op":"session.chat","session":1,"text":"hi","timeoutMs":1}`,
		`{"op":"session.messages","session":1}`,
		`{"op":"session.create","options":{"kit":{"tools":[{"name":""}],"execute":true}}}`,
		`{"op":"debug.panic"}`, `{`, `[]`, ``,
		`{"op":"port.call","port":2,"name":"g.do_action","args":{"action":"p.go","confirm":true}}`,
		`{"op":"port.call","port":2,"name":"g.journey.j","args":{"step":"go"}}`,
		`{"op":"port.call","port":2,"name":"g.whats_here","args":{"sinceVersion":-1}}`,
		`{"op":"port.mcp","port":2,"message":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}`,
		`{"op":"port.patch","port":2,"state":{"k":[1,{"a":null}]}}`,
		`{"op":"port.approveAsk","port":2,"askId":"ask#1"}`,
		`{"op":"port.create","graph":` + fuzzGraph + `,"options":{"journeyTools":"single","handlers":["p.go"]}}`,
	} {
		f.Add([]byte(s))
	}
	offline := bridge.FetcherFunc(func(ctx context.Context, req *bridge.Request) (*bridge.Response, error) {
		return nil, &bridge.FetchError{URL: req.URL, Err: errors.New("offline")}
	})
	f.Fuzz(func(t *testing.T, cmd []byte) {
		rt := command.New(false)
		// A session exists, so chat commands reach the loop.
		rt.Call(context.Background(), []byte(`{"op":"session.create"}`), command.Hooks{Fetcher: offline})
		// And a port (id 2), so port commands reach it.
		rt.Call(context.Background(), []byte(`{"op":"port.create","graph":`+fuzzGraph+`}`), command.Hooks{})
		out := rt.Call(context.Background(), cmd, command.Hooks{Fetcher: offline})
		var r struct {
			OK    bool `json:"ok"`
			Error *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("reply %q is not JSON: %v", out, err)
		}
		if !r.OK && (r.Error == nil || r.Error.Code == "" || r.Error.Message == "") {
			t.Fatalf("a failed reply without a code and message: %s", out)
		}
		if r.OK && r.Error != nil {
			t.Fatalf("a reply both ok and failed: %s", out)
		}
	})
}
