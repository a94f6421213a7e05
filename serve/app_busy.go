// Busy labels: the host marks an action, area or page busy; the label
// reaches the model on the action's rows and refusals, and never gates.

package serve

import (
	"slices"
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/errs"
)

// maxBusyLabel caps a busy label, in bytes.
const maxBusyLabel = 200

// SetBusy marks an action, an area or a page busy with a label the model
// is shown (capped at 200 bytes); an empty label clears it. Busy never
// gates a fire: it tells the model that slowness is work in progress.
func (a *App) SetBusy(id, label string) error {
	if a.g.Action(id) == nil && a.g.Page(id) == nil && !a.isArea(id) {
		return errs.New("serve: SetBusy: ", strconv.Quote(id), " is not an action, area or page of graph ", strconv.Quote(a.g.ID))
	}
	label = capText(strings.TrimSpace(label), maxBusyLabel)
	a.mu.Lock()
	if label == "" {
		delete(a.busy, id)
	} else {
		if a.busy == nil {
			a.busy = map[string]string{}
		}
		a.busy[id] = label
	}
	a.mu.Unlock()
	a.changed()
	return nil
}

// isArea reports whether path is an area of some page (a page id may
// itself hold dots, so the page is not simply the path's first segment).
func (a *App) isArea(path string) bool {
	for i := range a.g.Pages {
		if p := &a.g.Pages[i]; strings.HasPrefix(path, p.ID+".") && slices.Contains(p.Areas, path) {
			return true
		}
	}
	return false
}

// busyOf is the busy label of an action: its own, else its nearest busy
// area's, else its page's; call it with the lock.
func (a *App) busyOf(act *Action) string {
	if len(a.busy) == 0 {
		return ""
	}
	if l := a.busy[act.ID]; l != "" {
		return l
	}
	// Up through its areas to its page, and no further: a page id may hold
	// dots, and the page "shop" is not around the page "shop.cart".
	for path := act.ID; len(path) > len(act.On); {
		dot := strings.LastIndexByte(path, '.')
		if dot < 0 {
			return ""
		}
		path = path[:dot]
		if l := a.busy[path]; l != "" {
			return l
		}
	}
	return ""
}
