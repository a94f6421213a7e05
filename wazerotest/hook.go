// The host side of the hook imports: the module's callbacks (auth, execute,
// kit methods, system, transport) answered by Options.Hook.

package wazerotest

import (
	"context"
	"encoding/json"
	"fmt"
)

// HookCall is one callback the module asked the host to run.
type HookCall struct {
	Hook    string          `json:"hook"`    // "auth", "execute", "kit.execute", "kit.systemPrompt", "system", "transport"
	Session int             `json:"session"` // the session it is for
	Payload json.RawMessage `json:"payload"` // the callback's JSON argument
}

// startHook runs Options.Hook on its own goroutine and streams its answer.
func (i *Instance) startHook(req []byte) *exchange {
	x := newExchange()
	var call HookCall
	if err := json.Unmarshal(req, &call); err != nil {
		x.failure = "wazerotest: malformed hook request: " + err.Error()
		return x
	}
	if i.opts.Hook == nil {
		x.failure = fmt.Sprintf("wazerotest: no Hook configured to answer %q", call.Hook)
		return x
	}
	ctx, cancel := context.WithCancel(context.Background())
	x.cancel = cancel
	go func() {
		defer func() {
			if p := recover(); p != nil {
				x.fail(fmt.Sprintf("wazerotest: the %s hook panicked: %v", call.Hook, p))
			}
		}()
		answer, err := i.opts.Hook(ctx, call)
		if err != nil {
			x.fail(err.Error())
			return
		}
		x.mu.Lock()
		x.body.Write(answer)
		x.mu.Unlock()
		x.finish()
	}()
	return x
}
