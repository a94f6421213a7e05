// The composition plane: tools discovered on the MCP server and routed by
// the policy are called through the MCP client, with the session's draft
// bound into their arguments and one reload-and-retry on a conflict.

package session

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/session/mcpclient"
)

// Draft-binding names.
const (
	// CodeFailedPrecondition is the tool error code of a stale draft
	// generation: the draft is reloaded and the call retried once.
	CodeFailedPrecondition = "failed_precondition"
	// GetDraftTool reloads a draft after a conflict.
	GetDraftTool = "honua_studio_get_draft"
	// CodeNotRoutable rejects a discovered tool the policy refused.
	CodeNotRoutable = "not_routable"
	// CodeMCPError rejects a composition call that failed outside the tool.
	CodeMCPError = "mcp_error"
)

// callComposition runs one routed MCP tool; tt traces it.
func (t *turnState) callComposition(ctx context.Context, call ToolCall, tt *toolTrace) DispatchRecord {
	s := t.s
	rec := DispatchRecord{ToolCallID: call.ID, ToolName: call.Name, Plane: PlaneComposition}
	args := objectOrEmpty(call.Args)
	draft := s.Draft()
	if draft != nil {
		args = bindDraft(args, draft)
	}
	res, err := s.callTool(ctx, call.Name, args)
	var te *mcpclient.ToolError
	if err != nil && draft != nil && errs.As(err, &te) && te.Code == CodeFailedPrecondition && ctx.Err() == nil {
		rec.RetriedAfterConflict = true
		if traced {
			tt.conflictRetry()
		}
		fresh, rerr := s.reloadDraft(ctx, draftIDOf(args, draft))
		if rerr != nil {
			failed := *te
			failed.Message += "; reloading the draft failed: " + rerr.Error()
			return s.compositionFailure(ctx, rec, &failed)
		}
		s.AttachDraft(fresh)
		args = bindDraft(args, fresh)
		res, err = s.callTool(ctx, call.Name, args)
	}
	if err != nil {
		return s.compositionFailure(ctx, rec, err)
	}
	if d := draftIn(res); d != nil {
		s.AttachDraft(d)
		rec.Draft = d
		dj, _ := wire.Marshal(&wire.Draft{DraftID: d.DraftID, Generation: d.Generation})
		rec.Content = string(wire.BuildObject([]wire.Field{{Key: "status", Value: []byte(`"ok"`)}, {Key: "draft", Value: dj}}))
	} else {
		result := res.StructuredContent
		if len(result) == 0 {
			result = res.Content
		}
		rec.Content = string(wire.BuildObject([]wire.Field{{Key: "status", Value: []byte(`"ok"`)}, {Key: "result", Value: result}}))
	}
	rec.OK = true
	return rec
}

// compositionFailure turns an MCP error into a rejection record.
func (s *Session) compositionFailure(ctx context.Context, rec DispatchRecord, err error) DispatchRecord {
	var te *mcpclient.ToolError
	switch {
	case ctx.Err() != nil:
		return s.reject(rec, CodeCancelled, "The turn was cancelled while "+rec.ToolName+" ran.")
	case errs.As(err, &te):
		msg := te.Message
		if rec.RetriedAfterConflict && !strings.Contains(msg, "reloading the draft failed") {
			msg += " (after reloading the draft once)"
		}
		return s.reject(rec, te.Code, msg)
	default:
		return s.reject(rec, CodeMCPError, err.Error())
	}
}

// callTool calls the MCP client, guarding against a panic in it.
func (s *Session) callTool(ctx context.Context, name string, args RawJSON) (res mcpclient.ToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errs.New("the MCP client panicked: ", errs.Text(p))
		}
	}()
	return s.opts.MCPClient.CallTool(ctx, name, args)
}

// reloadDraft asks the server for the draft's current binding.
func (s *Session) reloadDraft(ctx context.Context, draftID string) (*DraftBinding, error) {
	args := wire.BuildObject([]wire.Field{{Key: "draftId", Value: wire.EncodeString(draftID)}})
	res, err := s.callTool(ctx, GetDraftTool, args)
	if err != nil {
		return nil, err
	}
	d := draftIn(res)
	if d == nil {
		return nil, errors.New(GetDraftTool + " returned no draft")
	}
	return d, nil
}

// bindDraft copies args, sets draftId to the model's if given, else the
// session's, and always overwrites generation with the session's.
func bindDraft(args RawJSON, d *DraftBinding) RawJSON {
	fields, err := wire.ObjectFields(args)
	if err != nil {
		fields = nil
	}
	if id := wire.GetField(fields, "draftId"); len(id) == 0 || string(id) == "null" || string(id) == `""` {
		fields = wire.SetField(fields, "draftId", wire.EncodeString(d.DraftID))
	}
	fields = wire.SetField(fields, "generation", []byte(strconv.FormatInt(d.Generation, 10)))
	return wire.BuildObject(fields)
}

// draftIDOf reads the draftId the call carried.
func draftIDOf(args RawJSON, d *DraftBinding) string {
	fields, _ := wire.ObjectFields(args)
	if id, err := wire.DecodeString(wire.GetField(fields, "draftId")); err == nil && id != "" {
		return id
	}
	return d.DraftID
}

// draftIn finds {draftId, generation} (top level or under "draft") in a
// result's structuredContent, else in its first text block.
func draftIn(res mcpclient.ToolResult) *DraftBinding {
	for _, raw := range [][]byte{res.StructuredContent, firstText(res.Content)} {
		b := bytes.TrimSpace(raw)
		if len(b) == 0 || b[0] != '{' {
			continue
		}
		var c wire.DraftCarrier
		if wire.Unmarshal(b, &c) != nil {
			continue
		}
		if c.DraftID != "" && c.Generation != nil {
			return &DraftBinding{DraftID: c.DraftID, Generation: *c.Generation}
		}
		if c.Draft != nil && c.Draft.DraftID != "" {
			return &DraftBinding{DraftID: c.Draft.DraftID, Generation: c.Draft.Generation}
		}
	}
	return nil
}

// firstText returns the text of the first text block of a content list.
func firstText(content RawJSON) []byte {
	var blocks wire.MCPContentBlocks
	if wire.Unmarshal(content, &blocks) != nil {
		return nil
	}
	for _, b := range blocks {
		if b.Type == "text" {
			return []byte(b.Text)
		}
	}
	return nil
}
