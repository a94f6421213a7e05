// The scrubber at the session's boundary: every string the session emits
// (events, the turn, dispatch records, discovery reports, errors, the
// history) or forwards (requests to the model) passes through secrets, which
// knows every token the session obtained (auth.go). Tool results, MCP error
// texts and panic values are redacted where they leave the session, not
// where they are made, so that no path can forget.

package session

// scrubRaw replaces every known token in a JSON value; raw itself comes
// back when it holds none.
func (s *secrets) scrubRaw(raw RawJSON) RawJSON {
	if !s.known() || len(raw) < minSecretLen {
		return raw
	}
	if out := s.scrub(string(raw)); out != string(raw) {
		return RawJSON(out)
	}
	return raw
}

// streamEvent returns ev with every known token replaced in its texts (ids,
// names and codes are left alone).
func (s *secrets) streamEvent(ev StreamEvent) StreamEvent {
	if s.known() {
		ev.Text = s.scrub(ev.Text)
		ev.ToolArgumentsDelta = s.scrub(ev.ToolArgumentsDelta)
		ev.ToolArguments = s.scrubRaw(ev.ToolArguments)
		ev.ErrorMessage = s.scrub(ev.ErrorMessage)
	}
	return ev
}

// record returns r with every known token replaced in its texts.
func (s *secrets) record(r DispatchRecord) DispatchRecord {
	if s.known() {
		r.ErrorMessage = s.scrub(r.ErrorMessage)
		r.Content = s.scrub(r.Content)
	}
	return r
}

// message returns m with its own copy of its calls, and every known token
// replaced in its content and its calls' arguments.
func (s *secrets) message(m Message) Message {
	m.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
	if s.known() {
		m.Content = s.scrub(m.Content)
		for i := range m.ToolCalls {
			m.ToolCalls[i].Args = s.scrubRaw(m.ToolCalls[i].Args)
		}
	}
	return m
}

// report returns r with every known token replaced in its error text (the
// rest of a report is made by the policy from the tools' names and
// classifications).
func (s *secrets) report(r ToolDiscoveryReport) ToolDiscoveryReport {
	r.ErrorMessage = s.scrub(r.ErrorMessage)
	return r
}

// event returns ev with every known token replaced in what it carries; the
// values it points to are copied, never changed in place.
func (s *secrets) event(ev Event) Event {
	if !s.known() {
		return ev
	}
	if ev.Chat != nil {
		c := s.streamEvent(*ev.Chat)
		ev.Chat = &c
	}
	if ev.Result != nil {
		r := s.record(*ev.Result)
		ev.Result = &r
	}
	if ev.Discovery != nil {
		d := s.report(*ev.Discovery)
		ev.Discovery = &d
	}
	if ev.Step != nil {
		st := *ev.Step
		st.Text = s.scrub(st.Text)
		st.ToolCalls = append([]DispatchRecord(nil), st.ToolCalls...)
		for i := range st.ToolCalls {
			st.ToolCalls[i] = s.record(st.ToolCalls[i])
		}
		ev.Step = &st
	}
	ev.WatchDetail = s.scrub(ev.WatchDetail)
	return ev
}

// request returns r for the model with every known token replaced in the
// system prompt and the tools' descriptions (a copy when tokens are known).
// The history comes scrubbed from Session.Messages.
func (s *secrets) request(r *ChatRequest) *ChatRequest {
	if !s.known() {
		return r
	}
	c := *r
	c.System = s.scrub(r.System)
	c.Tools = append([]ToolDefinition(nil), r.Tools...)
	for i := range c.Tools {
		c.Tools[i].Description = s.scrub(c.Tools[i].Description)
	}
	return &c
}

// turn replaces every known token in the texts of t, in place (the turn is
// the session's own until Chat returns it; its dispatch records were
// scrubbed as they were made).
func (s *secrets) turn(t *Turn) {
	if s.known() {
		t.Text = s.scrub(t.Text)
		t.ErrorMessage = s.scrub(t.ErrorMessage)
		for i := range t.Events {
			t.Events[i] = s.streamEvent(t.Events[i])
		}
		for i := range t.PendingApprovals {
			t.PendingApprovals[i].Detail = s.scrubRaw(t.PendingApprovals[i].Detail)
		}
	}
}
