// Snapshots: a session's state as a plain JSON document (Session.Snapshot)
// and a session made from one (Options.Restore), so that a conversation —
// and a turn that stopped on approvals — outlives its page, and goes on in
// another host.

package session

import (
	"errors"
	"strconv"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/rawjson"
	"github.com/agentwasm/agentwasm/internal/wire"
)

// SnapshotFormat and SnapshotVersion name what Session.Snapshot writes. A
// released version stays readable: Options.Restore reads every version up
// to SnapshotVersion (testdata/snapshots holds one fixture of each), and
// refuses a newer one or another format.
const (
	SnapshotFormat  = "agentwasm.session"
	SnapshotVersion = 1
)

// ErrorCodeBadSnapshot is the code of a snapshot Options.Restore refuses:
// another format, an unknown version, JSON that is not a snapshot, a
// history that is not well-formed, or one past the bounds.
const ErrorCodeBadSnapshot = "bad_snapshot"

// ErrBadSnapshot matches (errors.Is) every error New returns for a
// snapshot it refuses; the error's text says what is wrong with it.
var ErrBadSnapshot = errors.New("session: bad snapshot")

// badSnapshot is a refused snapshot's error.
type badSnapshot struct{ msg string }

func (e *badSnapshot) Error() string        { return e.msg }
func (e *badSnapshot) Is(target error) bool { return target == ErrBadSnapshot }

// Snapshot returns the session's state as one JSON object: its format and
// version, the history, the asks the last turn stopped on (each with its
// card's detail), the tokens of every turn so far, the draft binding and
// the counter of ids given to unnamed tool calls — what the next turn needs
// to send the very request this session would send. It holds no option,
// no function and no credential: every token the session learned (Auth's,
// OpenAI's key) is replaced by [redacted], as in every text the session
// emits.
//
// While a Chat or Resume runs, the snapshot holds the state as it was when
// that turn began, and the turn as "interrupted" with its person's message:
// a page that goes away mid-turn restores a well-formed history (no call
// without its answer) and can offer the message again.
//
// Its size follows the history's: a history the session could still send
// (Options.MaxRequestBytes) makes a snapshot Restore takes.
func (s *Session) Snapshot() ([]byte, error) {
	s.mu.Lock()
	history, pending, interrupted := s.history, s.pending, ""
	if s.busy.Load() {
		history, pending = s.history[:s.turnStart], s.turnPending
		if s.turnStart < len(s.history) && s.history[s.turnStart].Role == "user" {
			interrupted = s.history[s.turnStart].Content
		}
	}
	snap := wire.SessionSnapshot{
		Format: SnapshotFormat, Version: SnapshotVersion, CallSeq: s.callSeq,
		History: make([]wire.SnapshotMessage, len(history)),
	}
	for i, m := range history {
		m = s.secrets.message(m)
		w := wire.SnapshotMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, ToolName: m.ToolName}
		for _, c := range m.ToolCalls {
			w.ToolCalls = append(w.ToolCalls, wire.SnapshotToolCall{ID: c.ID, Name: c.Name, Arguments: rawjson.Message(c.Args)})
		}
		snap.History[i] = w
	}
	for _, p := range pending {
		snap.Pending = append(snap.Pending, wire.SnapshotAsk{AskID: p.AskID, ToolCallID: p.ToolCallID, ToolName: p.ToolName,
			Action: p.Action, Detail: rawjson.Message(s.secrets.scrubRaw(p.Detail))})
	}
	if s.usage != (Usage{}) {
		snap.Usage = &wire.SnapshotUsage{InputTokens: s.usage.InputTokens, OutputTokens: s.usage.OutputTokens}
	}
	if s.draft != nil {
		snap.Draft = &wire.Draft{DraftID: s.draft.DraftID, Generation: s.draft.Generation}
	}
	if interrupted != "" {
		snap.Interrupted = &wire.SnapshotInterrupted{Text: s.secrets.scrub(interrupted)}
	}
	snap.Options = s.dataOptions()
	s.mu.Unlock()
	return wire.Marshal(&snap)
}

// dataOptions returns the options a snapshot carries: the data ones, as
// the session was given them (BaseURL as resolved), never a function and
// never a credential (Auth and OpenAI.APIKey stay out; OpenAI only as its
// base URL).
func (s *Session) dataOptions() *wire.SnapshotOptions {
	o := &s.opts
	w := &wire.SnapshotOptions{BaseURL: o.BaseURL, MCPURL: o.MCPURL, Model: o.Model, Provider: o.Provider,
		System: s.secrets.scrub(o.System), MaxTokens: o.MaxTokens, Temperature: o.Temperature, MaxToolRounds: o.MaxToolRounds}
	if tc := o.ToolChoice; tc != nil {
		w.ToolChoice = &wire.ToolChoice{Mode: tc.Mode, ToolName: tc.ToolName}
	}
	if o.OpenAI != nil {
		w.OpenAIBaseURL = o.OpenAI.BaseURL
	}
	return w
}

// fill sets each data option o leaves at its zero value from the
// snapshot's: the caller's own options win, and a host that restores a
// conversation it knows nothing of gets the original's model, prompt and
// endpoint. (OpenAI comes back without a key: give OpenAI.APIKey again.)
func (r *restored) fill(o *Options) {
	w := r.options
	if w == nil {
		return
	}
	if o.BaseURL == "" {
		o.BaseURL = w.BaseURL
	}
	if o.MCPURL == "" {
		o.MCPURL = w.MCPURL
	}
	if o.Model == "" {
		o.Model = w.Model
	}
	if o.Provider == "" {
		o.Provider = w.Provider
	}
	if o.System == "" && o.SystemFunc == nil {
		o.System = w.System
	}
	if o.MaxTokens == 0 {
		o.MaxTokens = w.MaxTokens
	}
	if o.Temperature == nil && w.Temperature != nil {
		t := *w.Temperature
		o.Temperature = &t
	}
	if o.ToolChoice == nil && w.ToolChoice != nil {
		o.ToolChoice = &ToolChoice{Mode: w.ToolChoice.Mode, ToolName: w.ToolChoice.ToolName}
	}
	if o.MaxToolRounds == 0 {
		o.MaxToolRounds = w.MaxToolRounds
	}
	if o.OpenAI == nil && w.OpenAIBaseURL != "" && o.Transport == nil {
		o.OpenAI = &OpenAIEndpoint{BaseURL: w.OpenAIBaseURL}
	}
}

// maxSnapshotBytes is the largest snapshot Restore reads, for a session
// whose requests are bounded by maxRequest: the history of a request, with
// room for what a snapshot adds (the asks' details, the JSON around).
func maxSnapshotBytes(maxRequest int) int { return 2*maxRequest + 1<<20 }

// restored is a snapshot read and checked, ready to become a session's
// state.
type restored struct {
	options *wire.SnapshotOptions
	history []Message
	pending []PendingApproval
	usage   Usage
	draft   *DraftBinding
	callSeq int
}

// apply sets s's state from r.
func (r *restored) apply(s *Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.history, s.callSeq, s.usage = r.history, r.callSeq, r.usage
	if len(r.pending) > 0 {
		s.pending = r.pending
	}
	if r.draft != nil {
		s.draft = r.draft
	}
}

// readSnapshot reads and checks the snapshot data for a session whose
// requests are bounded by maxRequest; its error matches ErrBadSnapshot.
func readSnapshot(data []byte, maxRequest int) (*restored, error) {
	if n, limit := len(data), maxSnapshotBytes(maxRequest); n > limit {
		return nil, &badSnapshot{"session: the snapshot is " + strconv.Itoa(n) + " bytes, past the " + strconv.Itoa(limit) +
			" this session reads (twice MaxRequestBytes, and 1 MiB); raise MaxRequestBytes to the bound of the session that took it"}
	}
	var snap wire.SessionSnapshot
	if err := wire.Unmarshal(jsonr.TrimSpace(data), &snap); err != nil {
		return nil, &badSnapshot{"session: the snapshot is not a snapshot's JSON (" + err.Error() + "); give Restore the bytes Session.Snapshot returned"}
	}
	switch {
	case snap.Format != SnapshotFormat:
		return nil, &badSnapshot{"session: the snapshot's format is " + strconv.Quote(errs.Trunc(snap.Format, 40)) + ", not " + strconv.Quote(SnapshotFormat)}
	case snap.Version < 1 || snap.Version > SnapshotVersion:
		return nil, &badSnapshot{"session: the snapshot's version is " + strconv.Itoa(snap.Version) + "; this agentwasm reads versions 1 to " +
			strconv.Itoa(SnapshotVersion) + " (a newer agentwasm wrote it: restore it there)"}
	case snap.CallSeq < 0:
		return nil, &badSnapshot{"session: the snapshot's callSeq is negative"}
	}
	history, err := snapshotHistory(snap.History)
	if err != nil {
		return nil, err
	}
	pending := make([]PendingApproval, 0, len(snap.Pending))
	for i, a := range snap.Pending {
		if a.AskID == "" || !answered(history, a.ToolCallID) {
			return nil, &badSnapshot{"session: the snapshot's pending ask " + strconv.Itoa(i) + " has no id, or names a call the history does not answer"}
		}
		pending = append(pending, PendingApproval{AskID: a.AskID, ToolCallID: a.ToolCallID, ToolName: a.ToolName, Action: a.Action, Detail: RawJSON(a.Detail)})
	}
	r := &restored{history: history, pending: pending, callSeq: snap.CallSeq, options: snap.Options}
	if u := snap.Usage; u != nil {
		r.usage = Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens}
	}
	if d := snap.Draft; d != nil {
		r.draft = &DraftBinding{DraftID: d.DraftID, Generation: d.Generation}
	}
	return r, nil
}

// snapshotHistory checks a snapshot's history and returns it as messages:
// roles user, assistant and tool; every call with an id, a name and object
// arguments, and answered by a tool message before the next user or
// assistant message; every tool message answering a call of the assistant
// message before it.
func snapshotHistory(in []wire.SnapshotMessage) ([]Message, error) {
	out := make([]Message, 0, len(in))
	open := map[string]bool{} // the calls of the last assistant message not yet answered
	bad := func(i int, why string) error {
		return &badSnapshot{"session: the snapshot's history message " + strconv.Itoa(i) + " " + why}
	}
	for i, w := range in {
		m := Message{Role: w.Role, Content: w.Content, ToolCallID: w.ToolCallID, ToolName: w.ToolName}
		switch w.Role {
		case "user", "assistant":
			if len(open) > 0 {
				return nil, bad(i, "follows a tool call that has no answer")
			}
			if w.Role == "user" && len(w.ToolCalls) > 0 {
				return nil, bad(i, "is a user message with tool calls")
			}
			for _, c := range w.ToolCalls {
				args := jsonr.TrimSpace(c.Arguments)
				if c.ID == "" || c.Name == "" || len(args) == 0 || args[0] != '{' || !wire.Valid(args) || open[c.ID] {
					return nil, bad(i, "has a tool call without an id or a name, with arguments that are not a JSON object, or an id twice")
				}
				open[c.ID] = true
				m.ToolCalls = append(m.ToolCalls, ToolCall{ID: c.ID, Name: c.Name, Args: RawJSON(args)})
			}
		case "tool":
			if !open[w.ToolCallID] {
				return nil, bad(i, "answers no open tool call")
			}
			delete(open, w.ToolCallID)
		default:
			return nil, bad(i, "has the role "+strconv.Quote(errs.Trunc(w.Role, 20))+"; want user, assistant or tool")
		}
		out = append(out, m)
	}
	if len(open) > 0 {
		return nil, &badSnapshot{"session: the snapshot's history ends with a tool call that has no answer"}
	}
	return out, nil
}

// answered reports whether a tool message of history answers the call id.
func answered(history []Message, id string) bool {
	for _, m := range history {
		if m.Role == "tool" && m.ToolCallID == id {
			return true
		}
	}
	return false
}

// Usage returns the tokens of every turn since the session began
// (or was reset): what a snapshot carries on.
func (s *Session) Usage() Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}
