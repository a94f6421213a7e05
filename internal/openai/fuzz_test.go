// A fuzz test of the translator: arbitrary bytes as an endpoint's answer,
// read as a caller reads them (bridge's SSE reader, or one whole JSON
// body), must never panic and must always come out in the proxy grammar.
// Run it with go test -fuzz FuzzTranslator ./internal/openai.

package openai

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentwasm/agentwasm/internal/wire"
)

func FuzzTranslator(f *testing.F) {
	for _, pattern := range []string{
		filepath.Join("testdata", "streams", "*", "*.sse"),
		filepath.Join("testdata", "shapes", "*.sse"),
	} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			if b, err := os.ReadFile(file); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte("data: [DONE]\n\n"))
	f.Add([]byte("event: error\ndata: {\"error\":\"x\"}\n\n"))
	f.Add([]byte("event: ping\ndata: {}\n\n"))
	f.Add([]byte(`{"model":"m","choices":[{"index":0,"message":{"content":"hi","tool_calls":[{"function":{"name":"a.b","arguments":"{}"}}]},"finish_reason":"stop"}]}`))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":3,\"function\":{\"arguments\":\"{\"}}]}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"function_call\":{\"name\":\"f\",\"arguments\":\"{}\"}},\"finish_reason\":\"function_call\"}]}\r\r"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":\"f\"}},{\"id\":\"a\",\"function\":{\"arguments\":\"{}\"}},{\"function\":{\"name\":\"g\"}}]}}]}\n\n"))
	f.Add([]byte("data: {\"model\":\"m\",\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":\"stop\",\"stop_reason\":7}]}\n\n"))

	_, names, err := BuildRequest(streamReq(), "")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, whole := range []bool{false, true} {
			var events []wire.StreamEvent
			tr := NewTranslator(TranslatorOptions{Names: names, Model: "requested", Advice: testAdvice, Emit: func(ev wire.StreamEvent) error {
				events = append(events, ev)
				return nil
			}})
			if err := feed(tr, body, whole); err != nil {
				e, ok := err.(*Error)
				if !ok {
					t.Fatalf("whole=%v: the translation failed with %T %v, not an *Error", whole, err, err)
				}
				if e.Message == "" {
					t.Fatalf("whole=%v: an error without a message: %+v", whole, e)
				}
				if err := tr.Flush(); err != nil {
					t.Fatalf("whole=%v: Flush: %v", whole, err)
				}
				events = append(events, wire.StreamEvent{Type: eventError, ErrorCode: e.Code, ErrorMessage: e.Message})
			}
			checkGrammar(t, events)
		}
	})
}
