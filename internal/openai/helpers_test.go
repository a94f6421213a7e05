// Test helpers: an answer's bytes fed to a Translator the way its callers
// (the dev proxy, the session's direct transport) feed it, and the events
// it emits recorded.

package openai

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/bridge"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// eventError is the Type of the error event that run appends for a failed
// answer.
const eventError = "error"

// cutMessage is the caller's message for a stream that ends before the
// answer is complete: the translator cannot tell, its caller decides.
const cutMessage = "the upstream's stream ended before the answer was complete; retry"

// testAdvice names the settings in the messages of the tests.
var testAdvice = Advice{Endpoint: "--upstream", Key: "AGENTWASM_API_KEY"}

// streamReq is the chat request the recorded streams answer: it advertises
// get_weather and studio.journey.publish_map.
func streamReq() *wire.ChatRequest {
	return &wire.ChatRequest{
		Messages: []wire.ChatMessage{{Role: "user", Content: "hi"}},
		Tools: []wire.ToolSpec{
			{Name: "get_weather", Description: "Weather at a place."},
			{Name: "studio.journey.publish_map", Description: "Publish the journey map."},
		},
	}
}

// run translates body, a whole JSON completion when whole, else an event
// stream, with a translator made from o (its Emit replaced), and returns
// the events. A failure ends them with one event of type "error" carrying
// the *Error's code and message, after what the translator held back.
func run(t testing.TB, body []byte, whole bool, o TranslatorOptions) []wire.StreamEvent {
	t.Helper()
	var evs []wire.StreamEvent
	o.Emit = func(ev wire.StreamEvent) error {
		evs = append(evs, ev)
		return nil
	}
	if o.Advice == (Advice{}) {
		o.Advice = testAdvice
	}
	tr := NewTranslator(o)
	if err := feed(tr, body, whole); err != nil {
		require.NoError(t, tr.Flush())
		var e *Error
		require.ErrorAs(t, err, &e)
		evs = append(evs, wire.StreamEvent{Type: eventError, ErrorCode: e.Code, ErrorMessage: e.Message})
	}
	return evs
}

// feed hands body to tr as a caller does: each server-sent event to Event,
// End after [DONE]; at the end of the body End when the finish came (a
// stream without [DONE] or without its usage chunk is complete), else a
// CodeCut failure. A whole answer goes to Whole, then End.
func feed(tr *Translator, body []byte, whole bool) error {
	if whole {
		if err := tr.Whole(body); err != nil {
			return err
		}
		return tr.End()
	}
	r := bridge.NewSSEReader(bytes.NewReader(body), 4<<20)
	for {
		ev, err := r.Next()
		if errors.Is(err, bridge.ErrFrameTooLarge) {
			return &Error{Code: CodeMalformed, Message: "an event larger than 4 MiB"}
		}
		if err != nil {
			if tr.Finished() {
				return tr.End()
			}
			return &Error{Code: CodeCut, Message: cutMessage}
		}
		done, err := tr.Event(ev.Event, ev.Data)
		if err != nil {
			return err
		}
		if done {
			return tr.End()
		}
	}
}
