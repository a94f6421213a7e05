// Progress notifications: a tools/call whose _meta carries a progressToken,
// over a transport that can stream, gets a Progress function that sends
// notifications/progress ahead of the answer, only increasing, none after.

package mcpserver

import (
	"bytes"
	"math"
	"strconv"
	"sync"

	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// progressToken returns params._meta.progressToken when it is a string or
// a number (nil otherwise).
func progressToken(params []byte) []byte {
	tok := bytes.TrimSpace(wire.GetField(metaFields(params), mcp.MetaProgressToken))
	if !mcp.ValidID(tok) {
		return nil
	}
	return tok
}

// progress sends one call's notifications/progress until the call returns.
type progress struct {
	notify  func([]byte)
	token   []byte
	mu      sync.Mutex // held while notify runs: the notifications stay in order, and none follows stop
	sent    bool
	last    float64
	stopped bool
}

// send writes one notification, unless the call returned or progress did
// not increase (or is not a finite number).
func (p *progress) send(progress, total float64, message string) {
	if math.IsNaN(progress) || math.IsInf(progress, 0) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped || (p.sent && progress <= p.last) {
		return
	}
	p.sent, p.last = true, progress
	params := append([]byte(`{"`+mcp.MetaProgressToken+`":`), p.token...)
	params = append(params, `,"progress":`...)
	params = strconv.AppendFloat(params, progress, 'g', -1, 64)
	if total > 0 && !math.IsInf(total, 0) {
		params = append(params, `,"total":`...)
		params = strconv.AppendFloat(params, total, 'g', -1, 64)
	}
	if message != "" {
		params = append(params, `,"message":`...)
		params = append(params, wire.EncodeString(message)...)
	}
	p.notify(mcp.NotificationBody(mcp.NotificationProgress, append(params, '}')))
}

// stop ends the notifications: the answer goes next.
func (p *progress) stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
}
