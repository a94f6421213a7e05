// Tests of the request trace: Note reaches the Trace through derived
// contexts, and does nothing without one.

package reqtrace

import (
	"context"
	"testing"
)

func TestNoteReachesTheTrace(t *testing.T) {
	tr := &Trace{Context: context.Background()}
	if got := tr.Last(); got != "" {
		t.Fatalf("a new trace says %q", got)
	}
	ctx, cancel := context.WithCancel(tr)
	defer cancel()
	Note(ctx, "server/discover")
	Note(ctx, "initialize")
	if got := tr.Last(); got != "initialize" {
		t.Fatalf("Last() = %q, want the request begun last", got)
	}
	Note(context.Background(), "tools/list") // no trace: nothing to tell
	if got := tr.Last(); got != "initialize" {
		t.Fatalf("Last() = %q after a note outside the trace", got)
	}
	type other struct{}
	if v := tr.Value(other{}); v != nil {
		t.Fatalf("Value of another key = %v, want the parent's (nil)", v)
	}
}
