//go:build !agentwasm_sessiononly

// JSON answers of the port's host commands: where the app session stands,
// its asks (the approval cards) and one transition's record.

package command

import "github.com/agentwasm/agentwasm/serve"

// stateJSON is port.state's answer: {page, version, state}.
func stateJSON(a *serve.App) []byte {
	st := map[string]any(a.State())
	if st == nil {
		st = map[string]any{}
	}
	return serve.Obj{}.Set("page", a.Page()).Set("version", a.Version()).Set("state", st).AppendJSON(nil)
}

// asksJSON is port.asks's answer: the ask journal, oldest first.
func asksJSON(asks []serve.AskInfo) []byte {
	b := []byte{'['}
	for i, k := range asks {
		if i > 0 {
			b = append(b, ',')
		}
		o := serve.Obj{}.Set("askId", k.ID).Set("action", k.Action).Set("does", k.Does).
			Set("input", k.Input).Set("state", k.State).Set("askedBy", string(k.AskedBy))
		if k.AnsweredBy != "" {
			o = o.Set("answeredBy", k.AnsweredBy)
		}
		if !k.CreatedAt.IsZero() {
			o = o.Set("createdAtMs", k.CreatedAt.UnixMilli())
		}
		if k.Transition != "" {
			o = o.Set("transitionId", k.Transition)
		}
		if k.Instance != "" {
			o = o.Set("instance", k.Instance)
		}
		b = o.AppendJSON(b)
	}
	return append(b, ']')
}

// transitionJSON is port.transition's answer.
func transitionJSON(t serve.TransitionInfo) []byte {
	o := serve.Obj{}.Set("transitionId", t.ID).Set("action", t.Action).Set("source", string(t.Source)).
		Set("input", t.Input).Set("effectStatus", t.Status).Set("settled", t.Settled()).Set("data", t.Data)
	if t.Error != "" {
		o = o.Set("error", t.Error)
	}
	if t.AskID != "" {
		o = o.Set("askId", t.AskID)
	}
	if t.Instance != "" {
		o = o.Set("instance", t.Instance)
	}
	if v := t.VerifyValue(); v != nil {
		o = o.Set("verifyHeld", v)
	}
	return o.AppendJSON(nil)
}
