//go:build !js && !wasip1

package command_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/wasm/command"
)

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
