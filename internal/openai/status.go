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
	t, ok := httpDate(h)
	if !ok {
		return 0, false
	}
	d := t.Sub(now)
	return max(int64((d+time.Second-1)/time.Second), 0), true
}

// httpDate parses an HTTP date in its one current form, IMF-fixdate
// ("Sun, 06 Nov 1994 08:49:37 GMT"). (Written out: time.Parse would add
// tens of kilobytes to the wasm modules.)
func httpDate(h string) (time.Time, bool) {
	const months = "JanFebMarAprMayJunJulAugSepOctNovDec"
	if len(h) != 29 || h[3] != ',' || h[4] != ' ' || h[7] != ' ' || h[11] != ' ' || h[16] != ' ' ||
		h[19] != ':' || h[22] != ':' || h[25:] != " GMT" {
		return time.Time{}, false
	}
	num := func(s string) int {
		n := 0
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return -1
			}
			n = n*10 + int(s[i]-'0')
		}
		return n
	}
	month := strings.Index(months, h[8:11])
	day, year, hh, mm, ss := num(h[5:7]), num(h[12:16]), num(h[17:19]), num(h[20:22]), num(h[23:25])
	if month < 0 || month%3 != 0 || day < 1 || day > 31 || year < 0 || hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 || ss > 60 {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month/3+1), day, hh, mm, ss, 0, time.UTC), true
}

// clean returns s as one line of valid UTF-8 of at most n runes: each run
// of white space (space, tab, line breaks) one space and none at either
// end, each byte that is not UTF-8 '?', and a cut marked "…". A secret must
// be redacted before: a cut could leave a part of it.
func clean(s string, n int) string {
	b := make([]byte, 0, len(s))
	runes, space := 0, false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v':
			space = len(b) > 0
			continue
		case r == utf8.RuneError && size == 1:
			r = '?'
		}
		if runes == n || space && runes+1 == n {
			return string(b) + "…"
		}
		if space {
			b = append(b, ' ')
			runes++
			space = false
		}
		b = utf8.AppendRune(b, r)
		runes++
	}
	return string(b)
}

// UpstreamMessage returns the message of an endpoint's error body:
// error.message (or error as a string), message or detail of a JSON body,
// otherwise the body's text, with the secret redacted (red, when not nil)
// and then made one line of at most MaxMessageChars characters. It is "" for an empty
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
		msg = string(body)
	}
	if red != nil {
		msg = red.String(msg)
	}
	return clean(msg, MaxMessageChars)
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
