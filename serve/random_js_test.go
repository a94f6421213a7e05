//go:build js

// Ask ids in the js build when the host's crypto.getRandomValues fails
// (random_js.go).

package serve

import (
	"regexp"
	"strings"
	"syscall/js"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ask ids stay unguessable when the host's crypto.getRandomValues fails: a
// stub that fills nothing (the array stays zero) or one that throws. The
// ids then come from the Go runtime's generator; never the zero id, never
// a repeat.
func TestAskIDsWhenTheHostsRandomnessFails(t *testing.T) {
	crypto := js.Global().Get("crypto")
	own := js.Global().Get("Object").Get("prototype").Get("hasOwnProperty").Call("call", crypto, "getRandomValues").Bool()
	orig := crypto.Get("getRandomValues")
	restore := func() {
		if own {
			crypto.Set("getRandomValues", orig)
		} else {
			crypto.Delete("getRandomValues")
		}
	}
	t.Cleanup(restore)
	fn := js.Global().Get("Function")
	re := regexp.MustCompile(`^ask_[a-z2-7]{26}$`)
	zero := askPrefix + strings.Repeat("a", 26)
	for _, tc := range []struct {
		name string
		stub js.Value
	}{
		{"fills nothing", fn.New("a", "return a")},
		{"throws", fn.New("throw new Error('no randomness')")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crypto.Set("getRandomValues", tc.stub)
			seen := map[string]bool{}
			for i := 0; i < 200; i++ {
				id := newAskID()
				require.Regexp(t, re, id)
				require.NotEqual(t, zero, id, "not the zero id")
				require.False(t, seen[id], "ids do not repeat: %s", id)
				seen[id] = true
			}
			restore()
			assert.Len(t, seen, 200)
		})
	}
}
