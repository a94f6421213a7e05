// Tool routing and execution: runtime tools run on the Executor; anything
// else is rejected with a record that says why.

package session

import (
	"context"
	"errors"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/gopool"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// dispatch routes one ready call and runs it: the runtime plane first
// (runtime holds the names of the runtime tools advertised this turn), then
// the composition plane (cat, the catalog advertised this turn, may be nil).
// A runtime result that waits for a person also returns its pending
// approval. tt traces the call.
func (t *turnState) dispatch(ctx context.Context, call ToolCall, runtime map[string]bool, cat *catalog, tt *toolTrace) (DispatchRecord, *PendingApproval) {
	rec := DispatchRecord{ToolCallID: call.ID, ToolName: call.Name}
	if !runtime[call.Name] {
		if cat != nil && cat.routed[call.Name] {
			return t.callComposition(ctx, call, tt), nil
		}
		if why, ok := cat.refusedWhy(call.Name); ok {
			rec.Plane = PlaneComposition
			return t.s.reject(rec, CodeNotRoutable, "not routable by this session: "+why), nil
		}
		rec.Plane = PlaneUnknown
		return t.s.reject(rec, CodeUnknownTool, "No tool named "+call.Name+" is available to this session."), nil
	}
	return t.runRuntime(ctx, call, rec)
}

// runRuntime runs a runtime tool's call on the executor.
func (t *turnState) runRuntime(ctx context.Context, call ToolCall, rec DispatchRecord) (DispatchRecord, *PendingApproval) {
	rec.Plane = PlaneRuntime
	var exec Executor = t.s.opts.Execute
	if exec == nil && t.s.opts.Kit != nil {
		exec = t.s.opts.Kit
	}
	if exec == nil {
		return t.s.reject(rec, CodeNoExecutor,
			"The runtime tool "+call.Name+" has no executor: supply a kit or an execute function to the session."), nil
	}
	res, err := execute(ctx, exec, ToolCall{ID: call.ID, Name: call.Name, Args: objectOrEmpty(call.Args)})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return t.s.reject(rec, CodeCancelled, "The turn was cancelled while "+call.Name+" ran."), nil
		case errors.Is(err, ErrResultTooLarge):
			return t.s.reject(rec, CodeResultTooLarge, "The tool "+call.Name+" ran, but its result was not kept: "+err.Error()+
				". Ask the tool for less (a page, a filter, a summary)."), nil
		}
		return t.s.reject(rec, CodeExecutionFailed, call.Name+" failed: "+err.Error()), nil
	}
	t.s.mu.Lock()
	data := resultData(res, t.s.secrets.scrub)
	rec.Content = resultContent(res, data, t.s.secrets.scrub)
	t.s.mu.Unlock()
	switch res.Status {
	case ToolOK, ToolDryRun:
		rec.OK = true
	default:
		rec.ErrorCode = string(res.Status)
		switch {
		case res.DeniedReason != "":
			rec.ErrorMessage = res.DeniedReason
		case res.Status == "":
			rec.ErrorCode = "invalid_result"
			rec.ErrorMessage = call.Name + " returned a result without a status."
		default:
			rec.ErrorMessage = call.Name + " returned " + string(res.Status) + "."
		}
		t.s.mu.Lock()
		rec.ErrorMessage = t.s.secrets.scrub(rec.ErrorMessage)
		t.s.mu.Unlock()
	}
	return rec, pendingOf(res, rec, data)
}

// execute runs the executor on its own goroutine, so that one which ignores
// ctx still lets the turn end when ctx does. A panic is an error.
func execute(ctx context.Context, exec Executor, call ToolCall) (ToolResult, error) {
	type result struct {
		res ToolResult
		err error
	}
	done := make(chan result, 1)
	gopool.Go(func() {
		returned := false
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: errs.New("the executor panicked: ", errs.Text(p))}
			} else if !returned {
				// runtime.Goexit (t.FailNow in a test executor, say) ends
				// the goroutine without a result: don't wait for one.
				done <- result{err: errors.New("the executor exited without returning")}
			}
		}()
		res, err := exec.Execute(ctx, call)
		returned = true
		done <- result{res, err}
	})
	select {
	case r := <-done:
		return r.res, r.err
	case <-ctx.Done():
		return ToolResult{}, ctx.Err()
	}
}

// resultData is a runtime tool's result data with every known token
// scrubbed; data that is not valid JSON becomes a JSON string. Nil when the
// result has none.
func resultData(res ToolResult, scrub func(string) string) RawJSON {
	if len(res.Data) == 0 {
		return nil
	}
	d := scrub(string(res.Data))
	if wire.Valid([]byte(d)) {
		return RawJSON(d)
	}
	return wire.EncodeString(d)
}

// resultContent is the tool message of a runtime tool's result: its status,
// data (from resultData) and denial reason, as one JSON object.
func resultContent(res ToolResult, data RawJSON, scrub func(string) string) string {
	b, _ := wire.Marshal(&wire.ToolContent{Status: string(res.Status), Data: data, DeniedReason: scrub(res.DeniedReason)})
	return string(b)
}

// reject fills a record for a call that did not run.
func (s *Session) reject(rec DispatchRecord, code, msg string) DispatchRecord {
	s.mu.Lock()
	msg = s.secrets.scrub(msg)
	s.mu.Unlock()
	rec.OK, rec.ErrorCode, rec.ErrorMessage = false, code, msg
	rec.Content = rejectionContent(code, msg)
	return rec
}

func rejectionContent(code, msg string) string {
	b, _ := wire.Marshal(&wire.Rejection{Status: "error", Code: code, Message: msg})
	return string(b)
}
