//go:build !js && !wasip1

// Validation of the loop's options and the draft binding.

package session_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentwasm/agentwasm/session"
	"github.com/stretchr/testify/assert"
)

func TestLoopOptionsValidation(t *testing.T) {
	zero, five, minus := 0, 5, -1
	system := func(context.Context) (string, error) { return "", nil }
	cases := []struct {
		name    string
		opts    session.Options
		wantErr string // a substring; "" means valid
	}{
		{"negative MaxToolRounds", session.Options{MaxToolRounds: -1}, "MaxToolRounds is -1"},
		{"MaxToolRounds 0 is the default", session.Options{MaxToolRounds: 0}, ""},
		{"MaxToolRounds 1", session.Options{MaxToolRounds: 1}, ""},
		{"System and SystemFunc", session.Options{System: "s", SystemFunc: system}, "System or SystemFunc, not both"},
		{"System alone", session.Options{System: "s"}, ""},
		{"SystemFunc alone", session.Options{SystemFunc: system}, ""},
		{"Tools entry without a name", session.Options{Tools: []session.ToolDefinition{{Name: "a"}, {Description: "nameless"}}}, "Tools[1] has no name"},
		{"Tools with names", session.Options{Tools: []session.ToolDefinition{{Name: "a"}, {Name: "a"}}}, ""},
		{"Draft without an id", session.Options{Draft: &session.DraftBinding{Generation: 3}}, "Draft has no DraftID"},
		{"Draft with a negative generation", session.Options{Draft: &session.DraftBinding{DraftID: "d", Generation: -1}}, "Generation is -1"},
		{"Draft", session.Options{Draft: &session.DraftBinding{DraftID: "d", Generation: 0}}, ""},
		{"watch factor below 1", session.Options{ToolListChangedWatch: &session.WatchOptions{Factor: 0.5}}, "Factor is 0.5"},
		{"watch factor negative", session.Options{ToolListChangedWatch: &session.WatchOptions{Factor: -2}}, "Factor is -2"},
		{"watch factor 0 is the default", session.Options{ToolListChangedWatch: &session.WatchOptions{Factor: 0}}, ""},
		{"watch factor 1", session.Options{ToolListChangedWatch: &session.WatchOptions{Factor: 1}}, ""},
		{"negative MaxReconnectAttempts", session.Options{ToolListChangedWatch: &session.WatchOptions{MaxReconnectAttempts: &minus}}, "MaxReconnectAttempts is -1"},
		{"MaxReconnectAttempts 0", session.Options{ToolListChangedWatch: &session.WatchOptions{MaxReconnectAttempts: &zero}}, ""},
		{"MaxReconnectAttempts 5", session.Options{ToolListChangedWatch: &session.WatchOptions{MaxReconnectAttempts: &five}}, ""},
		{"negative watch delay", session.Options{ToolListChangedWatch: &session.WatchOptions{InitialDelay: -time.Second}}, "must not be negative"},
		{"negative watch max delay", session.Options{ToolListChangedWatch: &session.WatchOptions{MaxDelay: -time.Second}}, "must not be negative"},
		{"negative stable stream", session.Options{ToolListChangedWatch: &session.WatchOptions{StableStream: -time.Second}}, "must not be negative"},
		{"StudioTools with an empty name", session.Options{StudioTools: &session.ToolPolicy{Allowlist: []string{"x", ""}}}, "empty name"},
		{"StudioTools", session.Options{StudioTools: &session.ToolPolicy{Families: []string{"f"}, Views: []string{"setup"}}}, ""},
		{"negative discovery timeout disables it", session.Options{ToolDiscoveryTimeout: -1}, ""},
		{"MCP options are accepted", session.Options{DisableToolDiscovery: true, WatchToolListChanged: true}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkNew(t, tc.opts, tc.wantErr)
		})
	}
}

// TestDraftBinding: the Draft option is copied, and AttachDraft replaces it.
func TestDraftBinding(t *testing.T) {
	d := &session.DraftBinding{DraftID: "d1", Generation: 4}
	s, err := session.New(session.Options{Draft: d})
	if !assert.NoError(t, err) {
		return
	}
	d.Generation = 99
	assert.Equal(t, &session.DraftBinding{DraftID: "d1", Generation: 4}, s.Draft(), "the option is copied")
	got := s.Draft()
	got.DraftID = "changed"
	assert.Equal(t, "d1", s.Draft().DraftID, "Draft returns a copy")
	s.AttachDraft(&session.DraftBinding{DraftID: "d2", Generation: 1})
	assert.Equal(t, &session.DraftBinding{DraftID: "d2", Generation: 1}, s.Draft())
	s.AttachDraft(nil)
	assert.Nil(t, s.Draft())
}
