// Steps and usage: what one model round took (its token counts, summed over
// a turn) and the stepFinish event emitted after each round that finished.

package session

// Usage counts the tokens the proxy reported in messageStop (promptTokens,
// completionTokens).
//
//easyjson:json
//agentwasm:encode-only
type Usage struct {
	InputTokens  int64 `json:"inputTokens"`  // the sum of messageStop's promptTokens
	OutputTokens int64 `json:"outputTokens"` // the sum of messageStop's completionTokens
}

// addStop adds the counts of one messageStop to *u, allocating it on the
// first stop that reports any; a stop reporting none leaves *u as it was.
func addStop(u **Usage, ev StreamEvent) {
	if ev.PromptTokens == 0 && ev.CompletionTokens == 0 {
		return
	}
	if *u == nil {
		*u = &Usage{}
	}
	(*u).InputTokens += ev.PromptTokens
	(*u).OutputTokens += ev.CompletionTokens
}

// Step is what one model round of a turn did, carried by the
// EventTypeStepFinish event after the round's answer streamed and, if it
// called tools, all its calls were dispatched. A round that ended in error,
// cancellation or truncation has no step.
//
//easyjson:json
//agentwasm:encode-only
type Step struct {
	Round      int              `json:"round"`                    // 1-based, counting the turn's model requests
	Text       string           `json:"text"`                     // the round's text
	ToolCalls  []DispatchRecord `json:"toolCalls" jsonw:"nonnil"` // the round's dispatches, in order
	StopReason string           `json:"stopReason,omitempty"`     // the round's messageStop stopReason
	Usage      *Usage           `json:"usage,omitempty"`          // the round's token counts; nil when it reported none
}

// finishStep emits the stepFinish event of the round just finished.
func (t *turnState) finishStep(r *round, records []DispatchRecord) {
	if t.s.opts.OnEvent == nil {
		return
	}
	st := &Step{
		Round:      t.turn.Rounds,
		Text:       r.textString(),
		ToolCalls:  append([]DispatchRecord(nil), records...), // the observer's own copy
		StopReason: r.stopReason,
	}
	if r.usage != nil {
		u := *r.usage
		st.Usage = &u
	}
	t.s.emit(Event{Type: EventTypeStepFinish, Step: st})
}
