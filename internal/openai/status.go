// What a failed response means: its status and body as an *Error that says
// what to do.

package openai

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// MaxErrorBodyBytes bounds how much of a failed response's body a caller
// reads for its message.
const MaxErrorBodyBytes = 64 << 10

// Failure describes a response outside 2xx.
type Failure struct {
	// Status is the HTTP status.
	Status int
	// Body is the start of the body (at most MaxErrorBodyBytes).
	Body []byte
	// RetryAfter is the Retry-After header, "" when none.
	RetryAfter string
	// Now is the time the response came, for a Retry-After date.
	Now time.Time
	// Keyed says a key was sent.
	Keyed bool
	// Endpoint is the endpoint as messages show it (no key, no query).
	Endpoint string
}

// StatusError returns the *Error for a response outside 2xx: CodeUnauthorized
// for 401 and 403, CodeNotFound for 404, CodeRateLimited for 429 (saying
// when to retry when the endpoint sent Retry-After), CodeUnavailable for 5xx
// and CodeRejected for the rest. The message quotes the endpoint's own error
// message (redacted by red, when not nil, and cut to about MaxMessageChars
// characters) and names the setting to check in a's words.
func StatusError(f Failure, a Advice, red Redactor) *Error {
	detail := UpstreamMessage(f.Body, red)
	if detail != "" {
		detail = ": " + detail
	}
	at := ""
	if f.Endpoint != "" {
		at = " at " + f.Endpoint
	}
	status := "HTTP " + strconv.Itoa(f.Status)
	switch code := f.Status; {
	case code == 401 || code == 403:
		if !f.Keyed {
			return &Error{Code: CodeUnauthorized, Message: "the endpoint" + at + " wants an API key (" + status + ")" + detail + "; set " + a.Key}
		}
		return &Error{Code: CodeUnauthorized, Message: "the endpoint" + at + " refused the API key (" + status + ")" + detail + "; check " + a.Key + " (and that it may use this model)"}
	case code == 404:
		return &Error{Code: CodeNotFound, Message: "the endpoint" + at + " answered " + status + detail + "; check the model name, and that " + a.Endpoint + " is the API's base (such as http://127.0.0.1:11434/v1)"}
	case code == 429:
		what := "the endpoint" + at + " is rate limiting requests (" + status + ")" + detail
		if s, ok := RetryAfter(f.RetryAfter, f.Now); ok {
			unit := " seconds"
			if s == 1 {
				unit = " second"
			}
			return &Error{Code: CodeRateLimited, Message: what + "; retry after " + strconv.FormatInt(s, 10) + unit}
		}
		return &Error{Code: CodeRateLimited, Message: what + "; wait a little, then retry"}
	case code >= 500:
		return &Error{Code: CodeUnavailable, Message: "the endpoint" + at + " failed (" + status + ")" + detail + "; retry later, or check the server's logs"}
	}
	return &Error{Code: CodeRejected, Message: "the endpoint" + at + " rejected the request (" + status + ")" + detail + "; check " + a.Endpoint + " and the model name"}
}

// RetryAfter parses a Retry-After header, delay-seconds or an HTTP date,
// into whole seconds from now.
func RetryAfter(h string, now time.Time) (int64, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(h, 10, 64); err == nil {
		return max(s, 0), true
	}
	t, err := time.Parse("Mon, 02 Jan 2006 15:04:05 GMT", h)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	return max(int64((d+time.Second-1)/time.Second), 0), true
}

// UpstreamMessage returns the message of an endpoint's error body:
// error.message (or error as a string), message or detail of a JSON body,
// otherwise the body's text, with the secret redacted (red, when not nil)
// and then cut to about MaxMessageChars characters. It is "" for an empty
// body.
func UpstreamMessage(body []byte, red Redactor) string {
	msg := ""
	var v wire.OpenAIErrorBody
	if wire.Unmarshal(body, &v) == nil {
		msg = ErrorText(v.Error)
		if msg == "" {
			msg = stringValue(v.Message)
		}
		if msg == "" {
			msg = stringValue(v.Detail)
		}
	}
	if msg == "" {
		msg = strings.ToValidUTF8(string(body), "?")
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if red != nil {
		msg = red.String(msg)
	}
	return trim(msg, MaxMessageChars)
}

// ErrorText returns the text of an error value: a string, or an object's
// message (its whole JSON text when it has none). It is "" for null.
func ErrorText(e rawjson.Message) string {
	e = jsonr.TrimSpace(e)
	if len(e) == 0 || string(e) == "null" {
		return ""
	}
	if s := stringValue(e); s != "" {
		return s
	}
	var obj wire.OpenAIErrorObject
	if wire.Unmarshal(e, &obj) == nil {
		if s := stringValue(obj.Message); s != "" {
			return s
		}
	}
	if !utf8.Valid(e) {
		return strings.ToValidUTF8(string(e), "?")
	}
	return string(e)
}

// stringValue returns raw as a string when it is a JSON string, else "".
func stringValue(raw rawjson.Message) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	s, err := wire.DecodeString(raw)
	if err != nil {
		return ""
	}
	return s
}
