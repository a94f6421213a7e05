//go:build !js && !wasip1

// Helpers shared by the client's tests.

package mcpclient_test

import (
	"context"
	"testing"
)

// waitFor fails the test if ch is not closed or sent on within mcpBound.
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	bound, cancel := context.WithTimeout(context.Background(), mcpBound)
	defer cancel()
	select {
	case <-ch:
	case <-bound.Done():
		t.Fatalf("%s did not happen", what)
	}
}
