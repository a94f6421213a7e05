//go:build !js && !wasip1

// An example of Session.Snapshot and Options.Restore: a conversation that
// outlives its session.

package session_test

import (
	"context"
	"fmt"

	"github.com/agentwasm/agentwasm/session"
)

// A conversation goes on in another session (another page load, another
// process, another host): the first session's snapshot restores it, and the
// restored session's next request carries the whole history.
func ExampleSession_Snapshot() {
	first, _ := session.New(session.Options{
		Transport:            session.NewScriptedTransport(session.TextRound("Hello! Which map?")),
		DisableToolDiscovery: true,
	})
	first.Chat(context.Background(), "hi")
	snap, _ := first.Snapshot() // store it: a page's sessionStorage, a file, a database
	fmt.Println(string(snap))

	next := session.NewScriptedTransport(session.TextRound("The city map it is."))
	restored, err := session.New(session.Options{Transport: next, DisableToolDiscovery: true, Restore: snap})
	if err != nil {
		fmt.Println(err) // a snapshot that is not one: errors.Is(err, session.ErrBadSnapshot)
		return
	}
	turn := restored.Chat(context.Background(), "the city map")
	fmt.Println(turn.Text)
	for _, m := range next.Requests()[0].Messages {
		fmt.Println(m.Role+":", m.Content)
	}
	// Output:
	// {"format":"agentwasm.session","version":1,"history":[{"role":"user","content":"hi"},{"role":"assistant","content":"Hello! Which map?"}],"options":{"baseUrl":"/api","maxToolRounds":8}}
	// The city map it is.
	// user: hi
	// assistant: Hello! Which map?
	// user: the city map
}
