// Options: everything a Session is configured with, and their defaults.

package session

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentwasm/agentwasm/bridge"
)

// DefaultBaseURL is the base of the Studio API used when Options.BaseURL is empty.
const DefaultBaseURL = "/api"

// Options configures a Session. The zero value is usable: it talks to
// DefaultBaseURL with the host's default fetcher.
type Options struct {
	// BaseURL is the base of the Studio API: chat is sent to
	// {BaseURL}/v1/studio/ai/chat. Default DefaultBaseURL.
	BaseURL string

	// Fetcher sends every request. Default bridge.DefaultFetcher().
	Fetcher bridge.Fetcher

	// Provider, Model, MaxTokens and Temperature are passed to the proxy as
	// given; zero values are omitted from the request.
	Provider    string
	Model       string
	MaxTokens   int
	Temperature *float64

	// ToolChoice tells the model whether and which tools to call; nil omits it.
	ToolChoice *ToolChoice

	// System is the system prompt; empty omits it.
	System string

	// OnEvent observes every event the session streams. It is called on the
	// goroutine running Chat, in order. A panicking observer is recovered
	// and ignored: it never breaks, hangs or fails a turn.
	OnEvent func(Event)

	// MaxFrameBytes bounds one server-sent event frame of the chat stream.
	// Default bridge.DefaultMaxFrameBytes (4 MiB).
	MaxFrameBytes int
}

// ToolChoice tells the model whether and which tools to call.
type ToolChoice struct {
	Mode     string // "auto", "none", "required" or "specific"
	ToolName string // with Mode "specific": the tool to call
}

// withDefaults checks o and returns a copy with defaults filled in.
func (o Options) withDefaults() (Options, error) {
	if o.BaseURL == "" {
		o.BaseURL = DefaultBaseURL
	}
	o.BaseURL = strings.TrimRight(o.BaseURL, "/")
	if o.Fetcher == nil {
		o.Fetcher = bridge.DefaultFetcher()
	}
	if o.MaxTokens < 0 {
		return o, fmt.Errorf("session: MaxTokens is %d; give a positive number, or 0 to let the proxy choose", o.MaxTokens)
	}
	if o.MaxFrameBytes < 0 {
		return o, fmt.Errorf("session: MaxFrameBytes is %d; give a positive number, or 0 for the 4 MiB default", o.MaxFrameBytes)
	}
	if o.ToolChoice != nil {
		switch o.ToolChoice.Mode {
		case "auto", "none", "required":
		case "specific":
			if o.ToolChoice.ToolName == "" {
				return o, errors.New(`session: ToolChoice mode "specific" needs a ToolName`)
			}
		default:
			return o, fmt.Errorf(`session: ToolChoice mode %q is not one of "auto", "none", "required", "specific"`, o.ToolChoice.Mode)
		}
	}
	return o, nil
}
