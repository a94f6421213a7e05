// The settlement fold: a call whose fire is still pending waits a little for
// the transition to settle and, if it does, answers with the settled facts.
// The MCP server and a session's port kit both answer this way.

package serve

import (
	"context"
	"time"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// DefaultSettleWithin is the settlement ceiling of an MCP server (and of a
// port handed to a session as its kit) when none is set.
const DefaultSettleWithin = 250 * time.Millisecond

// CallSettled calls the port and folds in the settlement: a result that
// fired (it carries a transitionId and is pending) waits up to within, or
// until ctx ends, for its transition to settle. A settled one gets the
// settled facts folded in (effectStatus, settled, outcome, data, error, and
// the position after the fire) and loses its settleWith pointer; otherwise
// it is returned pending. within <= 0 never waits. Pauses and refusals
// carry no transitionId and return at once: a call never blocks on a
// person.
func CallSettled(ctx context.Context, p *Port, name string, args []byte, within time.Duration) Result {
	res := p.Call(ctx, name, args)
	id := res.TransitionID()
	if id == "" || within <= 0 {
		return res
	}
	if st, _ := res.Get("effectStatus"); st != nil && st != statusPending {
		return res // already settled
	}
	wctx, cancel := context.WithTimeout(ctx, within)
	info, err := p.App().WaitSettled(wctx, id)
	cancel()
	if err != nil || !info.Settled() {
		return res
	}
	res = res.With("effectStatus", info.Status).With("settled", true)
	if info.Data != nil {
		res = res.With("data", info.Data)
	}
	if info.Error != "" {
		res = res.With("error", info.Error)
	}
	// did_it_work is the authority on how settled facts read (outcome …);
	// the position it reports is the one after the fire (a goTo moved it).
	facts := p.Call(ctx, p.DidItWorkTool(), append(append([]byte(`{"transitionId":`), wire.EncodeString(id)...), '}'))
	for _, k := range []string{"effectStatus", "outcome", "verifyHeld", "verifyFailed", "data", "error", "settled", "youAreOn", "version"} {
		if v, ok := facts.Get(k); ok && v != nil {
			res = res.With(k, v)
		}
	}
	// A journey step's frame view (judgment, ready and later steps) was
	// taken while the step was in flight; show it as it stands now.
	return p.refreshJourney(res).With("settleWith", nil)
}
