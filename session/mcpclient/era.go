// Era negotiation and the session-era handshake of Client.

package mcpclient

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/absent"
	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/mcp"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// usable reports whether requests may be sent with st.
func (st mcpState) usable() bool {
	return st.ready && (st.era == EraStateless || st.era == EraSession)
}

// acquire takes the handshake slot, or fails when ctx ends first.
func (c *Client) acquire(ctx context.Context, method string) error {
	select {
	case c.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctxError(ctx, method)
	}
}

func (c *Client) release() { <-c.sem }

// ensure returns a usable state, probing the era and initializing first
// when needed. Concurrent callers share one probe and one handshake.
func (c *Client) ensure(ctx context.Context) (mcpState, error) {
	if st := c.state(); st.usable() {
		return st, nil
	}
	if err := c.acquire(ctx, mcp.MethodInitialize); err != nil {
		return mcpState{}, err
	}
	defer c.release()
	st := c.state()
	if st.usable() {
		return st, nil
	}
	if st.era == "" {
		era := c.cfg.Era
		if era == EraAuto {
			var err error
			if era, err = c.probe(ctx, st); err != nil {
				return mcpState{}, err
			}
		}
		st.era = era
		if era == EraStateless {
			st.ready, st.version = true, StatelessProtocolVersion
		}
		c.store(st) // the era is remembered even if the handshake fails
		if st.ready {
			return st, nil
		}
	}
	ready, err := c.initialize(ctx, st)
	if status := statusOf(err); err != nil && absent.Status(status) && !c.hasReached() {
		// Every answer was 404 or 405: the endpoint is absent. The era the
		// probe fell back to is not known either; the next try probes again.
		c.store(mcpState{gen: st.gen})
		return mcpState{}, c.absent(status, err)
	}
	return ready, err
}

// statusOf returns the HTTP status an MCP error came with, 0 when none.
func statusOf(err error) int {
	var te *TransportError
	var pe *ProtocolError
	switch {
	case errs.As(err, &te):
		return te.Status
	case errs.As(err, &pe):
		return pe.Status
	}
	return 0
}

// renew starts a new session after stale's session ended (a 404), unless a
// concurrent caller already did.
func (c *Client) renew(ctx context.Context, stale mcpState) (mcpState, error) {
	if err := c.acquire(ctx, mcp.MethodInitialize); err != nil {
		return mcpState{}, err
	}
	defer c.release()
	st := c.state()
	if st.gen != stale.gen {
		return mcpState{}, &TransportError{Method: mcp.MethodInitialize, Msg: "the MCP client was reset while the session was renewed"}
	}
	if st.usable() && st.sessionID != stale.sessionID {
		return st, nil // someone else renewed it
	}
	st = mcpState{era: EraSession, gen: st.gen}
	c.store(st)
	return c.initialize(ctx, st)
}

// probe asks server/discover in the stateless era and returns the era the
// server speaks. It falls back to the session era on a 400 whose body is
// not a recognised stateless-era error, a 404 or 405, or a JSON-RPC
// "method not found" answer.
func (c *Client) probe(ctx context.Context, st mcpState) (Era, error) {
	st.era, st.version = EraStateless, StatelessProtocolVersion
	raw, status, err := c.roundTrip(ctx, st, mcp.MethodServerDiscover, "", nil, func(meta rawjson.Message) wire.Marshaler {
		return &wire.MCPMetaParams{Meta: meta}
	})
	if err == nil {
		var r wire.MCPDiscoverResult
		if err := wire.Unmarshal(raw, &r); err != nil {
			return "", &TransportError{Method: mcp.MethodServerDiscover, Msg: "malformed result", Err: err}
		}
		return eraOfVersions(r.SupportedVersions, nil)
	}
	if ctx.Err() != nil {
		return "", err
	}
	var pe *ProtocolError
	isPE := errs.As(err, &pe)
	switch {
	case status == 404 || status == 405:
		return EraSession, nil
	case status == 400 && isPE && mcp.IsStatelessErrorCode(pe.Code):
		if pe.Code == UnsupportedProtocolVersion {
			var d wire.MCPUnsupportedVersionData
			if wire.Unmarshal(pe.Data, &d) == nil {
				return eraOfVersions(d.Supported, err)
			}
		}
		return "", err
	case status == 400:
		return EraSession, nil
	case isPE && pe.Code == MethodNotFound:
		return EraSession, nil
	}
	return "", err
}

// eraOfVersions picks the era from a server's supported versions: the
// stateless era when it lists ours (or lists nothing), else the session era
// when it lists a session-era version the client speaks. Otherwise it fails
// with cause, or a protocol error naming the versions.
func eraOfVersions(versions []string, cause error) (Era, error) {
	if len(versions) == 0 || slices.Contains(versions, StatelessProtocolVersion) {
		return EraStateless, nil
	}
	for _, v := range versions {
		if mcp.IsSessionVersion(v) {
			return EraSession, nil
		}
	}
	if cause != nil {
		return "", cause
	}
	return "", &ProtocolError{Method: mcp.MethodServerDiscover, Code: UnsupportedProtocolVersion,
		Message: "the server supports none of the client's protocol versions (it supports [" + strings.Join(versions, " ") + "])"}
}

// initialize runs the session-era handshake from st (era session, not
// ready): initialize, then notifications/initialized with the session id
// and protocol version the answer set. The caller holds the handshake slot.
func (c *Client) initialize(ctx context.Context, st mcpState) (mcpState, error) {
	st.sessionID, st.version, st.ready = "", "", false
	params := &wire.MCPInitializeParams{
		ProtocolVersion: SessionProtocolVersion,
		Capabilities:    c.clientCap,
		ClientInfo:      wire.MCPImplementation{Name: c.cfg.ClientName, Version: c.cfg.ClientVersion},
		Meta:            c.initMeta,
	}
	raw, sid, err := c.initializeRequest(ctx, st, params)
	if err != nil {
		return mcpState{}, err
	}
	var r wire.MCPInitializeResult
	if err := wire.Unmarshal(raw, &r); err != nil {
		return mcpState{}, &TransportError{Method: mcp.MethodInitialize, Msg: "malformed result", Err: err}
	}
	if !mcp.IsSessionVersion(r.ProtocolVersion) {
		return mcpState{}, &ProtocolError{Method: mcp.MethodInitialize, Code: UnsupportedProtocolVersion,
			Message: "the server answered protocol version " + strconv.Quote(r.ProtocolVersion) + ", which this client does not speak"}
	}
	st.sessionID, st.version = sid, r.ProtocolVersion
	if err := c.notify(ctx, st, mcp.NotificationInitialized); err != nil {
		return mcpState{}, err
	}
	st.ready = true
	c.store(st)
	return st, nil
}

// initializeRequest sends initialize and returns its result and the
// Mcp-Session-Id the response carried.
func (c *Client) initializeRequest(ctx context.Context, st mcpState, params *wire.MCPInitializeParams) (rawjson.Message, string, error) {
	id := c.ids.Add(1)
	body, err := encodeRequest(id, mcp.MethodInitialize, params)
	if err != nil {
		return nil, "", err
	}
	hdr := c.postHeader(st, mcp.MethodInitialize, "")
	var tr *reqTrace
	if traced {
		ctx, body, tr = c.traceRequest(ctx, mcp.MethodInitialize, "", id, hdr, body)
	}
	resp, err := c.send(ctx, mcp.MethodInitialize, "POST", hdr, body)
	if err != nil {
		if traced {
			tr.end(mcp.MethodInitialize, nil, "", err)
		}
		return nil, "", err
	}
	sid := resp.Header.Get(mcp.HeaderSessionID)
	st.sessionID = sid // a server request before the answer (a ping) belongs to the new session
	raw, err := c.readAnswer(ctx, st, mcp.MethodInitialize, id, resp)
	if traced {
		tr.end(mcp.MethodInitialize, raw, sid, err)
	}
	return raw, sid, err
}
