// The dev server's OpenAI-compatible endpoint, POST
// /openai/v1/chat/completions, behind the same origin policy as /api: with
// the scripted model, that model through testing/fakeopenai (with
// --openai-key, requiring a key); with --upstream, a pass-through to the
// upstream that adds the server's key (studioproxy.Passthrough). Either way a
// page, a desktop host or Go code talks to it directly as to any
// OpenAI-compatible server, and no key sits in a page.

package main

import (
	"context"
	"io"
	"net/http"

	"github.com/agentwasm/agentwasm/cmd/agentwasm/internal/studioproxy"
	"github.com/agentwasm/agentwasm/internal/limits"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/testing/fakeopenai"
)

// openAIPrefix is where the OpenAI-compatible endpoint lives; its base URL
// for OpenAI clients is openAIPrefix + "v1".
const openAIPrefix = "/openai/"

// openAIChatPath is the endpoint's one route.
const openAIChatPath = "/openai" + fakeopenai.ChatPath

// openAIKeyEnv names the environment variable --openai-key defaults to.
const openAIKeyEnv = "AGENTWASM_FAKE_OPENAI_KEY"

// newOpenAIHandler answers under openAIPrefix: the scripted model in
// OpenAI's chat completions stream, requiring o.OpenAIKey when it is set;
// with an upstream, the pass-through to it with the server's key and the
// models --model and --allow-model allow, bounded by limit (the proxy's
// --max-concurrent slots, which it shares: both spend the same key). Any
// other path is answered 404 with an OpenAI-style error.
func newOpenAIHandler(o devOptions, models []string, limit func(http.Handler) http.Handler) http.Handler {
	if o.Upstream != "" {
		pass := limit(studioproxy.NewPassthrough(studioproxy.PassthroughOptions{URL: o.Upstream, APIKey: o.APIKey, Model: o.Model, Models: models}))
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != openAIChatPath {
				openAIError(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.URL.Path+"; the upstream is passed through at POST "+openAIChatPath+" (base URL /openai/v1)")
				return
			}
			pass.ServeHTTP(w, r)
		})
	}
	model := studioproxy.Scripted{Pace: o.Pace}
	fake := fakeopenai.New(fakeopenai.Options{
		APIKey:       o.OpenAIKey,
		MaxBodyBytes: limits.MaxChatRequestBytes,
		NoRecord:     true,
		Answer: func(ctx context.Context, req *wire.ChatRequest, emit func(string, wire.StreamEvent) error) error {
			return model.Stream(ctx, req, studioproxy.SinkFunc(emit))
		},
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != openAIChatPath {
			openAIError(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.URL.Path+"; the scripted model answers POST "+openAIChatPath+" (base URL /openai/v1)")
			return
		}
		fake.ServeHTTP(w, r)
	})
}

// openAIError answers status with an OpenAI-style error body.
func openAIError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, fakeopenai.ErrorStatus(status, "invalid_request_error", code, message).Body)
}
