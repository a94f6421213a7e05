// The host module "agentwasm": the imports the wasip1 build calls
// (wasm/README.md). Every function recovers, so a fault in the harness
// becomes an error code, never a trap in the module.

package wazerotest

import (
	"context"
	"crypto/rand"
	"encoding/json"

	"github.com/tetratelabs/wazero/api"
)

func (i *Instance) hostModule(ctx context.Context) error {
	_, err := i.rt.NewHostModuleBuilder("agentwasm").
		NewFunctionBuilder().WithFunc(i.fetchStart).Export("fetch_start").
		NewFunctionBuilder().WithFunc(i.fetchHead).Export("fetch_head").
		NewFunctionBuilder().WithFunc(i.fetchRead).Export("fetch_read").
		NewFunctionBuilder().WithFunc(i.fetchError).Export("fetch_error").
		NewFunctionBuilder().WithFunc(i.fetchClose).Export("fetch_close").
		NewFunctionBuilder().WithFunc(i.event).Export("event").
		NewFunctionBuilder().WithFunc(i.hookStart).Export("hook_start").
		NewFunctionBuilder().WithFunc(i.fetchRead).Export("hook_read").
		NewFunctionBuilder().WithFunc(i.fetchError).Export("hook_error").
		NewFunctionBuilder().WithFunc(i.fetchClose).Export("hook_close").
		Instantiate(ctx)
	return err
}

func (i *Instance) lookup(h int32) *exchange {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.exchanges[h]
}

func (i *Instance) fetchStart(ctx context.Context, m api.Module, headPtr, headLen, bodyPtr, bodyLen uint32) (h int32) {
	defer func() {
		if recover() != nil {
			h = codeFailed
		}
	}()
	head, ok := m.Memory().Read(headPtr, headLen)
	if !ok {
		return codeFailed
	}
	var body []byte
	if bodyLen > 0 {
		b, ok := m.Memory().Read(bodyPtr, bodyLen)
		if !ok {
			return codeFailed
		}
		body = append([]byte(nil), b...)
	}
	x := i.start(append([]byte(nil), head...), body)
	i.mu.Lock()
	defer i.mu.Unlock()
	i.nextFetch++
	i.exchanges[i.nextFetch] = x
	return i.nextFetch
}

func (i *Instance) hookStart(ctx context.Context, m api.Module, reqPtr, reqLen uint32) (h int32) {
	defer func() {
		if recover() != nil {
			h = codeFailed
		}
	}()
	req, ok := m.Memory().Read(reqPtr, reqLen)
	if !ok {
		return codeFailed
	}
	x := i.startHook(append([]byte(nil), req...))
	i.mu.Lock()
	defer i.mu.Unlock()
	i.nextFetch++
	i.exchanges[i.nextFetch] = x
	return i.nextFetch
}

func (i *Instance) fetchHead(ctx context.Context, m api.Module, h int32, buf, bufCap, waitMs uint32) (n int32) {
	defer func() {
		if recover() != nil {
			n = codeFailed
		}
	}()
	x := i.lookup(h)
	if x == nil {
		return codeBadHandle
	}
	b, code := i.head(ctx, x, waitMs)
	if code != 0 {
		return code
	}
	if uint32(len(b)) <= bufCap && !m.Memory().Write(buf, b) {
		return codeFailed
	}
	return int32(len(b))
}

func (i *Instance) fetchRead(ctx context.Context, m api.Module, h int32, buf, bufCap, waitMs uint32) (n int32) {
	defer func() {
		if recover() != nil {
			n = codeFailed
		}
	}()
	x := i.lookup(h)
	if x == nil {
		return codeBadHandle
	}
	b, code := i.read(ctx, x, int(bufCap), waitMs)
	if code <= 0 {
		return code
	}
	if !m.Memory().Write(buf, b) {
		return codeFailed
	}
	return code
}

func (i *Instance) fetchError(ctx context.Context, m api.Module, h int32, buf, bufCap uint32) (n int32) {
	defer func() {
		if recover() != nil {
			n = codeFailed
		}
	}()
	x := i.lookup(h)
	if x == nil {
		return codeBadHandle
	}
	x.mu.Lock()
	msg := []byte(x.failure)
	x.mu.Unlock()
	if uint32(len(msg)) <= bufCap && !m.Memory().Write(buf, msg) {
		return codeFailed
	}
	return int32(len(msg))
}

func (i *Instance) fetchClose(ctx context.Context, h int32) {
	defer func() { _ = recover() }()
	i.mu.Lock()
	x := i.exchanges[h]
	delete(i.exchanges, h)
	i.mu.Unlock()
	if x != nil {
		x.close()
	}
}

func (i *Instance) event(ctx context.Context, m api.Module, session int32, ptr, n uint32) {
	defer func() { _ = recover() }()
	b, ok := m.Memory().Read(ptr, n)
	if !ok {
		return
	}
	var ev Event
	if err := json.Unmarshal(b, &ev); err != nil {
		return
	}
	i.mu.Lock()
	i.events[int(session)] = append(i.events[int(session)], ev)
	i.mu.Unlock()
	if i.opts.OnEvent != nil {
		i.opts.OnEvent(int(session), ev)
	}
}

// randReader is the module's random source.
type randReader struct{}

func (randReader) Read(p []byte) (int, error) { return rand.Read(p) }
