// Reading a tool call's arguments: parseArgs and the typed readers over
// its object, which return an argError for an argument the port refuses,
// and argRefusal, the one place such an error becomes the result the model
// sees.

package serve

import (
	"math"
	"strconv"

	"github.com/agentwasm/agentwasm/internal/errs"
)

// maxArgs caps the arguments of one call.
const maxArgs = 1 << 20

// argError is an argument the port refuses: the reason code and the text
// of the "error" field of the result argRefusal makes of it.
type argError struct {
	reason string // ReasonInvalidArguments or ReasonArgumentsTooLarge
	text   string
}

// Error returns the text the result carries as "error".
func (e *argError) Error() string { return e.text }

// invalidArgument is an argError with reason INVALID_ARGUMENTS.
func invalidArgument(text string) error {
	return &argError{reason: ReasonInvalidArguments, text: text}
}

// argRefusal is the result for err, an argument the port refused: ok false,
// judgment error, the argError's reason and why, and its text as "error"
// (capped like every echo). Nothing was performed. An error that is not an
// argError (the readers here return none) is refused as INVALID_ARGUMENTS
// with its text.
func argRefusal(err error) Result {
	var ae *argError
	if !errs.As(err, &ae) {
		ae = &argError{reason: ReasonInvalidArguments, text: err.Error()}
	}
	return errorResult(ae.reason, "error", ae.text)
}

// argMap is the parsed arguments of a call.
type argMap map[string]any

// parseArgs parses raw arguments: empty, blank or null is {}; anything
// larger than maxArgs, not JSON or not an object is an argError.
func parseArgs(raw []byte) (argMap, error) {
	if len(raw) > maxArgs {
		return nil, &argError{reason: ReasonArgumentsTooLarge,
			text: "the arguments are " + strconv.Itoa(len(raw)) + " bytes; the limit is " + strconv.Itoa(maxArgs)}
	}
	blank := true
	for _, c := range raw {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			blank = false
			break
		}
	}
	if blank {
		return argMap{}, nil
	}
	v, err := ParseValue(raw)
	if err != nil {
		return nil, invalidArgument("the arguments are not valid JSON: " + capText(err.Error(), maxErrorText))
	}
	switch m := v.(type) {
	case nil:
		return argMap{}, nil
	case map[string]any:
		return argMap(m), nil
	}
	return nil, invalidArgument("the arguments must be a JSON object")
}

// str returns the string argument key: "" when absent, null or empty; an
// argError when it is not a string.
func (a argMap) str(key string) (string, error) {
	v, ok := a[key]
	if !ok || v == nil {
		return "", nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", invalidArgument(key + " must be a string, not " + jsonType(v))
	}
	return s, nil
}

// flag returns the boolean argument key: false when absent or null; an
// argError when it is not a boolean.
func (a argMap) flag(key string) (bool, error) {
	v, ok := a[key]
	if !ok || v == nil {
		return false, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, invalidArgument(key + " must be true or false, not " + jsonType(v))
	}
	return b, nil
}

// sinceVersion returns whats_here's sinceVersion: -1 when absent or null;
// an argError when it is not a whole number from 0 to 10^15.
func (a argMap) sinceVersion() (int64, error) {
	v, ok := a["sinceVersion"]
	if !ok || v == nil {
		return -1, nil
	}
	f, isNum := v.(float64)
	if !isNum || f < 0 || f != math.Trunc(f) || f > 1e15 {
		return -1, invalidArgument("sinceVersion must be a whole number ≥ 0, a version from an earlier result")
	}
	return int64(f), nil
}

// jsonType names the JSON type of v.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "an unknown value"
}

// fireArgs are the arguments shared by the journey tools and do_action.
type fireArgs struct {
	input           any
	hasInput        bool
	confirm, refuse bool
	instance        string // a repeating action's card
	offerID         string // a "cite" action's offer
	askID           string // the ask the call answers (askId), if cited
}

// fireArgs reads the arguments every graph takes (argMap.fireArgs), then
// instance and offerId when the graph has actions that take them (a graph
// without them ignores those names, as it did before they existed). A
// numeric instance is a card key in its JSON form.
func (p *Port) fireArgs(a argMap) (fireArgs, error) {
	f, err := a.fireArgs()
	if err != nil {
		return fireArgs{}, err
	}
	if p.instances {
		if v, isNum := a["instance"].(float64); isNum {
			f.instance = instanceKey(v)
		} else if f.instance, err = a.str("instance"); err != nil {
			return fireArgs{}, err
		}
	}
	if p.citing {
		if f.offerID, err = a.str("offerId"); err != nil {
			return fireArgs{}, err
		}
	}
	return f, nil
}

// fireArgs reads confirm, decline (they cannot both be true), askId and
// input.
func (a argMap) fireArgs() (fireArgs, error) {
	var f fireArgs
	var err error
	if f.confirm, err = a.flag("confirm"); err != nil {
		return fireArgs{}, err
	}
	if f.refuse, err = a.flag("decline"); err != nil {
		return fireArgs{}, err
	}
	if f.confirm && f.refuse {
		return fireArgs{}, invalidArgument("confirm and decline cannot both be true; pass the person's one answer")
	}
	if f.askID, err = a.str("askId"); err != nil {
		return fireArgs{}, err
	}
	f.input, f.hasInput = a["input"]
	return f, nil
}
