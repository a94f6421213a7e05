// The proxy grammar's event names are written again in testing/fakeopenai,
// which cannot import this package; agentwasm dev drives the fake with the
// scripted model's frames, so the two lists must stay the same.

package studioproxy

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentwasm/agentwasm/testing/fakeopenai"
)

func TestFakeOpenAIEventNamesAreTheProxys(t *testing.T) {
	for _, c := range []struct{ fake, proxy string }{
		{fakeopenai.EventMessageStart, EventMessageStart},
		{fakeopenai.EventTextDelta, EventTextDelta},
		{fakeopenai.EventToolCallStart, EventToolCallStart},
		{fakeopenai.EventToolCallDelta, EventToolCallDelta},
		{fakeopenai.EventToolCallStop, EventToolCallStop},
		{fakeopenai.EventMessageStop, EventMessageStop},
		{fakeopenai.EventError, EventError},
	} {
		assert.Equal(t, c.proxy, c.fake)
	}
}
