// Session options: from their JSON form and the host's hooks to
// session.Options.

package command

import (
	"errors"
	"strconv"
	"time"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/jsonw"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/session"
)

// sessionOptions builds the options of session id.
func sessionOptions(o *wire.SessionOptions, id int, hooks Hooks) (session.Options, error) {
	opts := session.Options{
		BaseURL:              o.BaseURL,
		MCPURL:               o.MCPURL,
		Fetcher:              hooks.Fetcher,
		DisableToolDiscovery: o.DisableToolDiscovery,
		MaxTokens:            o.MaxTokens,
		Model:                o.Model,
		Provider:             o.Provider,
		Temperature:          o.Temperature,
		System:               o.System,
		Tools:                toolDefinitions(o.Tools),
		WatchToolListChanged: o.WatchToolListChanged,
		MaxFrameBytes:        o.MaxFrameBytes,
		MaxTurnEvents:        o.MaxTurnEvents,
		MaxTurnTextBytes:     o.MaxTurnTextBytes,
		MaxRequestBytes:      o.MaxRequestBytes,
		MaxToolResultBytes:   o.MaxToolResultBytes,
	}
	if len(o.Restore) > 0 {
		opts.Restore = session.RawJSON(o.Restore)
	}
	h := hostHooks{call: hooks.Call, session: id}
	needs := func(name string) error {
		if hooks.Call == nil {
			return errs.New("agentwasm: the option ", name, " needs host callbacks, and this host supplies none")
		}
		return nil
	}
	if o.MaxToolRounds != nil {
		if *o.MaxToolRounds < 1 {
			return opts, errs.New("agentwasm: maxToolRounds is ", strconv.Itoa(*o.MaxToolRounds), "; give 1 or more")
		}
		opts.MaxToolRounds = *o.MaxToolRounds
	}
	if tc := o.ToolChoice; tc != nil {
		opts.ToolChoice = &session.ToolChoice{Mode: tc.Mode, ToolName: tc.ToolName}
	}
	if o.Auth {
		if err := needs("auth"); err != nil {
			return opts, err
		}
		opts.Auth = h
	}
	if e := o.OpenAI; e != nil {
		opts.OpenAI = &session.OpenAIEndpoint{BaseURL: e.BaseURL}
		if e.APIKey {
			if err := needs("openai.apiKey"); err != nil {
				return opts, err
			}
			opts.OpenAI.APIKey = hookKey{h}
		}
	}
	if o.Execute {
		if err := needs("execute"); err != nil {
			return opts, err
		}
		opts.Execute = hookExecutor{h, "execute"}
	}
	if k := o.Kit; k != nil {
		if (k.Execute || k.SystemPrompt) && hooks.Call == nil {
			return opts, needs("kit")
		}
		kit := hookKit{h: h, tools: toolDefinitions(k.Tools), execute: k.Execute}
		if k.SystemPrompt {
			opts.Kit = hookKitWithPrompt{kit}
		} else {
			opts.Kit = kit
		}
	}
	if o.SystemFunction {
		if o.System != "" {
			return opts, errors.New("agentwasm: give system as a string or a function, not both")
		}
		if err := needs("system"); err != nil {
			return opts, err
		}
		opts.SystemFunc = h.system
	}
	if o.Transport {
		if err := needs("transport"); err != nil {
			return opts, err
		}
		opts.Transport = hookTransport{h}
	}
	if d := o.Draft; d != nil {
		opts.Draft = &session.DraftBinding{DraftID: d.DraftID, Generation: d.Generation}
	}
	if p := o.StudioTools; p != nil {
		opts.StudioTools = &session.ToolPolicy{Families: p.Families, Views: p.Views, Allowlist: p.Allowlist, Required: p.Required}
		if p.Approve {
			if err := needs("studioTools.approve"); err != nil {
				return opts, err
			}
			opts.StudioTools.Approve = h.approve
		}
	}
	for _, b := range []struct {
		name string
		ms   *int64
		to   *time.Duration
	}{
		{"toolDiscoveryTimeoutMs", o.ToolDiscoveryTimeoutMs, &opts.ToolDiscoveryTimeout},
		{"streamFirstByteTimeoutMs", o.StreamFirstByteTimeoutMs, &opts.StreamFirstByteTimeout},
		{"streamIdleTimeoutMs", o.StreamIdleTimeoutMs, &opts.StreamIdleTimeout},
		{"capabilitiesTimeoutMs", o.CapabilitiesTimeoutMs, &opts.CapabilitiesTimeout},
	} {
		d, err := timeoutMs(b.name, b.ms)
		if err != nil {
			return opts, err
		}
		*b.to = d
	}
	if w := o.ToolListChangedWatch; w != nil {
		if w.InitialDelayMs < 0 || w.MaxDelayMs < 0 || w.StableStreamMs < 0 {
			return opts, errors.New("agentwasm: toolListChangedWatch delays must not be negative")
		}
		opts.ToolListChangedWatch = &session.WatchOptions{
			InitialDelay:         time.Duration(w.InitialDelayMs) * time.Millisecond,
			Factor:               w.Factor,
			MaxDelay:             time.Duration(w.MaxDelayMs) * time.Millisecond,
			MaxReconnectAttempts: w.MaxReconnectAttempts,
			StableStream:         time.Duration(w.StableStreamMs) * time.Millisecond,
		}
	}
	if o.MCPClient {
		if err := needs("mcpClient"); err != nil {
			return opts, err
		}
		opts.MCPClient = hookMCP{h}
	}
	if hooks.OnEvent != nil {
		opts.OnEvent = func(ev session.Event) { hooks.OnEvent(id, eventJSON(ev)) }
		if hooks.OnTextDelta != nil {
			opts.OnTextDelta = func(text string) { hooks.OnTextDelta(id, text) }
		}
	}
	return opts, nil
}

// eventJSON encodes ev (session.Event's own codec). A plain text delta — the
// event a turn streams most, one per token, and the hot path of every
// answer — is written straight into one buffer of the right size, where the
// general path grows a buffer from nothing; both write the same bytes
// (options_test.go).
func eventJSON(ev session.Event) []byte {
	if c := ev.Chat; c != nil && ev.Type == session.EventTypeChat && ev.Result == nil && ev.Discovery == nil &&
		ev.Step == nil && ev.WatchStatus == "" && ev.WatchDetail == "" && plainTextDelta(c) {
		const head, tail = `{"type":"chat","event":{"type":"textDelta","text":`, `}}`
		b := make([]byte, 0, len(head)+len(c.Text)+len(tail)+8)
		b = append(b, head...)
		b = jsonw.AppendString(b, c.Text)
		return append(b, tail...)
	}
	return encode(ev)
}

// plainTextDelta says whether c is a text delta with a text and nothing else.
func plainTextDelta(c *session.StreamEvent) bool {
	return c.Type == session.EventTextDelta && c.Text != "" && c.Model == "" && c.ToolCallID == "" && c.ToolName == "" &&
		c.ToolArgumentsDelta == "" && len(c.ToolArguments) == 0 && c.StopReason == "" && c.PromptTokens == 0 &&
		c.CompletionTokens == 0 && c.LatencyMs == 0 && c.ErrorMessage == "" && c.ErrorCode == ""
}

// timeoutMs converts a timeout option in milliseconds: absent is the
// session's default (0), 0 disables the bound (-1), a negative value is
// refused.
func timeoutMs(name string, ms *int64) (time.Duration, error) {
	switch {
	case ms == nil:
		return 0, nil
	case *ms < 0:
		return 0, errs.New("agentwasm: ", name, " is ", strconv.FormatInt(*ms, 10), "; give 0 (no bound) or more")
	case *ms == 0:
		return -1, nil
	}
	return time.Duration(*ms) * time.Millisecond, nil
}

// toolDefinitions converts advertised tool specs.
func toolDefinitions(specs []wire.ToolSpec) []session.ToolDefinition {
	var out []session.ToolDefinition
	for _, t := range specs {
		out = append(out, session.ToolDefinition{Name: t.Name, Description: t.Description,
			InputSchema: t.InputSchema, Annotations: t.Annotations,
			OutputSchema: t.OutputSchema})
	}
	return out
}
