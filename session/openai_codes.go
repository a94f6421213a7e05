// The error codes of a turn that failed at an OpenAI-compatible endpoint
// (Options.OpenAI), in every build.

package session

import "github.com/agentwasm/agentwasm/internal/openai"

// Error codes of a turn that failed at an OpenAI-compatible endpoint
// (Options.OpenAI); the dev proxy's OpenAI-compatible upstream sends the
// same codes in its error events.
const (
	// ErrorCodeUpstreamUnauthorized: 401 or 403, the key is missing or wrong.
	ErrorCodeUpstreamUnauthorized = openai.CodeUnauthorized
	// ErrorCodeUpstreamNotFound: 404, the base URL or the model name is wrong.
	ErrorCodeUpstreamNotFound = openai.CodeNotFound
	// ErrorCodeUpstreamRateLimited: 429; the message says when to retry.
	ErrorCodeUpstreamRateLimited = openai.CodeRateLimited
	// ErrorCodeUpstreamUnavailable: a 5xx status.
	ErrorCodeUpstreamUnavailable = openai.CodeUnavailable
	// ErrorCodeUpstreamRejected: any other status outside 2xx.
	ErrorCodeUpstreamRejected = openai.CodeRejected
	// ErrorCodeUpstreamNotOpenAI: the answer is not an OpenAI-compatible one.
	ErrorCodeUpstreamNotOpenAI = openai.CodeNotOpenAI
	// ErrorCodeUpstreamMalformed: a later chunk is not the expected JSON.
	ErrorCodeUpstreamMalformed = openai.CodeMalformed
	// ErrorCodeUpstreamError: the endpoint reported an error in the stream.
	ErrorCodeUpstreamError = openai.CodeError
	// ErrorCodeUpstreamUnreachable: no connection.
	ErrorCodeUpstreamUnreachable = openai.CodeUnreachable
	// ErrorCodeUpstreamCORS: in a page, the endpoint is up but does not
	// allow the page's origin.
	ErrorCodeUpstreamCORS = openai.CodeCORS
)

// ErrorCodeDirectUnavailable: the module was built without the direct
// transport (-tags agentwasm_nodirect), so Options.OpenAI cannot be used.
const ErrorCodeDirectUnavailable = "direct_unavailable"

// endpointName names an OpenAI-compatible endpoint in messages.
const endpointName = "the model endpoint"
