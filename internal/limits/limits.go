// Package limits holds the byte bounds that the session, the module and the
// dev server's Studio AI proxy share, so that nothing one of them accepts is
// refused by another: a session never sends a chat request the proxy would
// refuse with 413, and a tool result that could not fit in one is failed as
// the tool call's result (code result_too_large) instead of being kept.
// docs/PROTOCOL.md (Limits) lists them.
package limits

const (
	// MaxChatRequestBytes bounds the body of one chat request
	// (POST {base}/v1/studio/ai/chat): the dev proxy refuses a larger one
	// with 413, and it is the default of session.Options.MaxRequestBytes, the
	// bound a session checks before it sends one. 8 MiB.
	MaxChatRequestBytes = 8 << 20

	// MaxToolResultBytes bounds one tool message as the next request
	// carries it (its content, JSON-escaped): a larger result fails its tool
	// call with result_too_large. It is the default of
	// session.Options.MaxToolResultBytes: a quarter of the request bound, so
	// that one result leaves room for the rest of the conversation. 2 MiB.
	MaxToolResultBytes = MaxChatRequestBytes / 4

	// MaxHookAnswerBytes bounds what the module reads of one answer of a
	// host's callback (a tool's result, a token, one transport event line).
	// It is twice the request bound so that an over-large tool result is
	// read, measured and failed as result_too_large; an answer larger still
	// fails the call the same way without being read whole. 16 MiB.
	MaxHookAnswerBytes = 2 * MaxChatRequestBytes
)
