package mcp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsEventStream(t *testing.T) {
	for _, tc := range []struct {
		contentType string
		want        bool
	}{
		{"text/event-stream", true},
		{"Text/Event-Stream; charset=utf-8", true},
		{" text/event-stream ;x=y", true},
		{"application/json", false},
		{"text/event-streams", false},
		{"", false},
	} {
		assert.Equal(t, tc.want, IsEventStream(tc.contentType), "%q", tc.contentType)
	}
}

func TestAppendEvent(t *testing.T) {
	for _, tc := range []struct {
		name, event, id, data, want string
	}{
		{"data only", "", "", `{"a":1}`, "data: {\"a\":1}\n\n"},
		{"type and id", "message", "e1", `{}`, "event: message\nid: e1\ndata: {}\n\n"},
		{"several lines", "", "", "a\nb", "data: a\ndata: b\n\n"},
		{"empty data: a priming event", "", "e0", "", "id: e0\ndata: \n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, string(AppendEvent([]byte("prev\n"), tc.event, tc.id, tc.data))[len("prev\n"):])
		})
	}
	assert.Equal(t, "data: {\"b\":2}\n\n", string(DataEvent([]byte(`{"b":2}`))))
}
