package bridge_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentwasm/agentwasm/bridge"
)

// Reading a server-sent event stream frame by frame.
func ExampleSSEReader() {
	stream := ": a comment\r\n" +
		"event: text_delta\r\ndata: {\"text\":\"Hel\"}\r\n\r\n" +
		"id: 7\ndata: line one\ndata: line two\n\n" +
		"event: unfinished\ndata: dropped at the end"
	r := bridge.NewSSEReader(strings.NewReader(stream), 0)
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("event=%q id=%q data=%q\n", ev.Event, ev.ID, ev.Data)
	}
	fmt.Println("last id:", r.LastEventID())
	// Output:
	// event="text_delta" id="" data="{\"text\":\"Hel\"}"
	// event="" id="7" data="line one\nline two"
	// last id: 7
}
