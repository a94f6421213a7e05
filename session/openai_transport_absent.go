//go:build agentwasm_nodirect

// The direct transport left out: a module built with -tags
// agentwasm_nodirect has no internal/openai (docs/SIZE.md measures what that
// saves), and a session with Options.OpenAI ends each turn with
// ErrorCodeDirectUnavailable.

package session

import "context"

// openaiTransport stands in for the direct transport.
type openaiTransport struct {
	s *Session
}

func (openaiTransport) Stream(context.Context, *ChatRequest) (EventStream, error) {
	return nil, &errTransport{code: ErrorCodeDirectUnavailable, msg: "This build of agentwasm has no direct transport to an OpenAI-compatible endpoint " +
		"(it was built with -tags agentwasm_nodirect); use a build without that tag, or talk to the Studio AI proxy."}
}
