// Package openai is the OpenAI chat completions wire, known in one place:
// how a chat request in the proxy's terms (wire.ChatRequest) becomes the
// body of POST …/v1/chat/completions (BuildRequest, with the tool names an
// endpoint would reject mapped: ToolNames), how the streamed answer's
// chunks become the proxy grammar's events (Translator), and what a failed
// response means (StatusError). It does no I/O: the session's direct
// transport sends through its Fetcher (session/openai_transport.go), the
// dev proxy through net/http (cmd/agentwasm/internal/studioproxy), and both
// hand each server-sent event of the answer to a Translator.
//
// Every failure is an *Error whose Code is one of the Code… constants, and
// whose Message says what happened and what to do, in the caller's words
// for its settings (Advice).
package openai

// Error codes: the errorCode of the error event an answer ends with, the
// same through the dev proxy and the session's direct transport.
const (
	// CodeUnauthorized: the endpoint answered 401 or 403; the key is
	// missing, wrong or not allowed this model.
	CodeUnauthorized = "upstream_unauthorized"
	// CodeNotFound: the endpoint answered 404; the path or the model name
	// is wrong.
	CodeNotFound = "upstream_not_found"
	// CodeRateLimited: the endpoint answered 429; the message says when to
	// retry when it sent Retry-After.
	CodeRateLimited = "upstream_rate_limited"
	// CodeUnavailable: the endpoint answered 5xx.
	CodeUnavailable = "upstream_unavailable"
	// CodeRejected: any other status outside 2xx.
	CodeRejected = "upstream_rejected"
	// CodeNotOpenAI: the answer is not an OpenAI-compatible one (an HTML
	// page, another content type, a first chunk that is not a chat
	// completion chunk).
	CodeNotOpenAI = "upstream_not_openai"
	// CodeMalformed: a chunk after the first that is not the expected
	// JSON, or past a bound.
	CodeMalformed = "upstream_malformed"
	// CodeError: the endpoint reported an error inside the stream.
	CodeError = "upstream_error"
	// CodeCut: the stream ended before the answer was complete.
	CodeCut = "upstream_cut"
	// CodeUnreachable: no connection (or, in a page, a request the
	// browser refused; see CodeCORS).
	CodeUnreachable = "upstream_unreachable"
	// CodeCORS: in a page, the endpoint is up but does not allow the page's
	// origin (no Access-Control-Allow-Origin for it).
	CodeCORS = "upstream_cors"
	// CodeStalled: no headers, or a silent body, past the caller's bound.
	CodeStalled = "upstream_stalled"
	// CodeRedirected: a redirect to another origin, not followed, since
	// the key goes to the endpoint's origin only.
	CodeRedirected = "upstream_redirected"
	// CodeBadRequest: a chat request that cannot be translated.
	CodeBadRequest = "bad_request"
)

// Error is a failure with a stable code (one of the Code… constants).
type Error struct {
	Code    string
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Advice names the caller's settings in the messages of errors, so that
// they say what to change: the dev proxy's flags, or a session's options.
type Advice struct {
	// Endpoint names the setting that holds the endpoint's URL, e.g.
	// "--upstream" or "the model's baseUrl".
	Endpoint string
	// Key names the setting that holds the key, e.g. "AGENTWASM_API_KEY"
	// or "the model's apiKey".
	Key string
}
