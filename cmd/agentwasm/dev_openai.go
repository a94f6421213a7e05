// The scripted model as an OpenAI-compatible endpoint: agentwasm dev
// serves POST /openai/v1/chat/completions (when it runs the scripted model)
// through testing/fakeopenai, so a page, a desktop host or Go code can talk
// to it directly as to any OpenAI-compatible server, behind the same origin
// policy as /api and, with --openai-key, a key.

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
// OpenAI's chat completions stream, requiring o.OpenAIKey when it is set.
// With an upstream there is no scripted model, and every request is
// answered 404 with an OpenAI-style error saying what to call instead.
func newOpenAIHandler(o devOptions) http.Handler {
	if o.Upstream != "" {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			openAIError(w, http.StatusNotFound, "not_found", "agentwasm dev serves "+openAIChatPath+" only with its scripted model (no --upstream); with --upstream, call the upstream itself or the Studio AI proxy under /api")
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
