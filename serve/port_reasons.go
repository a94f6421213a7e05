// The closed vocabulary of results: judgments, reason codes and the
// authored why of every reason.

package serve

// The judgments a result may carry.
const (
	JudgmentNavigateOrWait    = "navigate-or-wait"
	JudgmentOneReadyStep      = "one-ready-step"
	JudgmentNeedsChoice       = "needs-choice"
	JudgmentDone              = "done"
	JudgmentBlocked           = "blocked"
	JudgmentError             = "error"
	JudgmentRejected          = "rejected"
	JudgmentNeedsConfirm      = "needs-confirm"
	JudgmentDeclined          = "declined"
	JudgmentStillPending      = "still-pending"
	JudgmentAwaitingHuman     = "awaiting-human"
	JudgmentApprovedNotDone   = "approved-not-yet-done"
	JudgmentApprovalInvalid   = "approval-no-longer-valid"
	JudgmentApprovalWithdrawn = "approval-withdrawn"
)

// The reason codes of refusals and port-level errors.
const (
	ReasonUnknownTool          = "UNKNOWN_TOOL"
	ReasonJourneyRequired      = "JOURNEY_REQUIRED"
	ReasonUnknownJourney       = "UNKNOWN_JOURNEY"
	ReasonUnknownStep          = "UNKNOWN_STEP"
	ReasonActionRequired       = "ACTION_REQUIRED"
	ReasonUnknownAction        = "UNKNOWN_ACTION"
	ReasonAmbiguousAction      = "AMBIGUOUS_ACTION"
	ReasonKeyRequired          = "KEY_REQUIRED"
	ReasonTransitionIDRequired = "TRANSITION_ID_REQUIRED"
	ReasonUnknownTransition    = "UNKNOWN_TRANSITION"
	ReasonInvalidArguments     = "INVALID_ARGUMENTS"
	ReasonArgumentsTooLarge    = "ARGUMENTS_TOO_LARGE"
	ReasonInternal             = "INTERNAL_ERROR"
	ReasonPortClosed           = "PORT_CLOSED"
	ReasonPreconditionFailed   = "PRECONDITION_FAILED"
	ReasonNotOnPage            = "NOT_ON_PAGE"
	ReasonNotOffered           = "NOT_OFFERED"
	ReasonPayloadInvalid       = "PAYLOAD_INVALID"
	ReasonToolDisabled         = "TOOL_DISABLED"
	ReasonNotMaterialized      = "NOT_MATERIALIZED"
	ReasonStepDone             = "STEP_ALREADY_DONE"
	ReasonStepInFlight         = "STEP_IN_FLIGHT"
	ReasonStepNotReady         = "STEP_NOT_READY"
	ReasonApprovalDeclined     = "APPROVAL_DECLINED"
	ReasonApprovalRequired     = "APPROVAL_REQUIRED"
	ReasonApprovalMismatch     = "APPROVAL_MISMATCH"
	ReasonApprovalSpent        = "APPROVAL_SPENT"
	ReasonApprovalRevoked      = "APPROVAL_REVOKED"
	ReasonApprovalStale        = "APPROVAL_STALE"

	// The second version's reasons.
	ReasonInstanceRequired   = "INSTANCE_REQUIRED"
	ReasonInstanceUnknown    = "INSTANCE_UNKNOWN"
	ReasonStillMounting      = "STILL_MOUNTING"
	ReasonOfferRequired      = "OFFER_REQUIRED"
	ReasonOfferUnknown       = "OFFER_UNKNOWN"
	ReasonStaleOffer         = "STALE_OFFER"
	ReasonDuplicateExecution = "DUPLICATE_EXECUTION"
	ReasonPriorFirePending   = "PRIOR_FIRE_PENDING"
	ReasonUnknownPage        = "UNKNOWN_PAGE"

	// Whose approval it is: an ask belongs to the caller that raised it
	// (WithCaller).
	ReasonApprovalNotYours = "APPROVAL_NOT_YOURS"
	ReasonAskIDRequired    = "ASK_ID_REQUIRED"
	ReasonAskUnknown       = "ASK_UNKNOWN"
)

// whys holds the authored explanation of every reason code.
var whys = map[string]string{
	ReasonUnknownTool:          "There is no tool by that name; nothing was performed. Use one of the listed tools.",
	ReasonJourneyRequired:      "The journey tool needs a journey id; nothing was performed. Pick one from whats_here.",
	ReasonUnknownJourney:       "No journey has that id; nothing was performed. Use one of the listed journeys.",
	ReasonUnknownStep:          "That is not a step of this journey (or matches more than one); nothing was performed. Use one of the listed steps.",
	ReasonActionRequired:       "do_action needs an action id; nothing was performed. See whats_here for the actions here.",
	ReasonUnknownAction:        "No action has that id or suffix; nothing was performed. Use one of the listed actions.",
	ReasonAmbiguousAction:      "That suffix matches more than one action; nothing was performed. Use one of the full ids listed.",
	ReasonKeyRequired:          "why needs a state key; nothing was performed.",
	ReasonTransitionIDRequired: "did_it_work needs a transitionId (or an askId); nothing was performed.",
	ReasonUnknownTransition:    "No fire or ask has that id; nothing was performed. The pending ones are listed.",
	ReasonInvalidArguments:     "An argument has the wrong type or value; nothing was performed. Fix it as described and call again.",
	ReasonArgumentsTooLarge:    "The arguments exceed 1 MiB; nothing was performed. Send less.",
	ReasonInternal:             "The port failed inside; nothing was performed. Calling again may work.",
	ReasonPortClosed:           "This app's port is closed; nothing was performed. The app is no longer reachable through these tools.",
	ReasonPreconditionFailed:   "The journey cannot start in the app's current state; nothing was performed and the open journey, if any, is unchanged. The evidence says which conditions failed.",
	ReasonNotOnPage:            "That action is not on the page the app is on; nothing was performed. Navigate to its page first, or pick an action offered here.",
	ReasonNotOffered:           "That action is not offered in the app's current state; nothing was performed. The evidence says which conditions failed.",
	ReasonPayloadInvalid:       "The input does not match what the action expects; nothing was performed. Fix it to match expects and call again.",
	ReasonToolDisabled:         "The control is greyed out right now; nothing was performed and no ask was made. It may become enabled when the conditions in evidence hold.",
	ReasonNotMaterialized:      "The app has not wired this action up; nothing was performed. It cannot be done from here.",
	ReasonStepDone:             "That step is already done in this journey; nothing was performed.",
	ReasonStepInFlight:         "That step was fired and has not settled; nothing was performed. Check it with did_it_work.",
	ReasonStepNotReady:         "The journey's first step has to be done before this one; nothing was performed.",
	ReasonApprovalDeclined:     "The person said no to this; nothing was performed. Do not retry it unless they change their mind.",
	ReasonApprovalRequired:     "This high-effect action needs a person's approval first; nothing was performed.",
	ReasonApprovalMismatch:     "The approval was for something else (see differs); nothing was performed. Ask again for exactly what you mean to do.",
	ReasonApprovalSpent:        "That approval was already used by an earlier fire; nothing was performed. Ask again.",
	ReasonApprovalRevoked:      "The person withdrew that approval; nothing was performed.",
	ReasonApprovalStale:        "That approval expired; nothing was performed. Ask again.",
	ReasonInstanceRequired:     "This action acts on one card of a list; nothing was performed. Name the card with instance, one of the listed keys.",
	ReasonInstanceUnknown:      "No card has that instance key; nothing was performed. Use one of the listed keys.",
	ReasonStillMounting:        "That card exists but the app has not finished showing it; nothing was performed. Try again in a moment.",
	ReasonOfferRequired:        "This action must cite the offerId of its whats_here row; nothing was performed. Call whats_here and pass the row's offerId.",
	ReasonOfferUnknown:         "No live offer has that id (it was made up, is for another action, or is too old); nothing was performed. Call whats_here for a fresh offerId.",
	ReasonStaleOffer:           "What this action reads or writes changed since the offer (see moved); nothing was performed. Call whats_here, look again, and cite the fresh offerId.",
	ReasonDuplicateExecution:   "This action may happen only once and it already did (see priorTransitionId); nothing was performed.",
	ReasonPriorFirePending:     "The previous fire of this action has not settled (see pendingTransitionId); nothing was performed. Check it with did_it_work before trying again.",
	ReasonUnknownPage:          "The app has no page by that name; nothing was performed. Use one of the listed pages.",
	ReasonApprovalNotYours:     "That approval was given to an ask another conversation raised; it backs only that conversation's fire, so nothing was performed and it was not used. Call without confirm to raise your own ask, and wait for the person's answer to it.",
	ReasonAskIDRequired:        "An approval for an ask raised without a session backs only a call that cites that ask's askId; nothing was performed and it was not used. Call again with confirm:true and the askId of your needs-confirm, or call without confirm to get one.",
	ReasonAskUnknown:           "No ask has that askId (it was mistyped, made up, or is too old to be kept); nothing was performed. Use the askId of your own needs-confirm, or call without confirm to get one.",
}

// whyOf returns the authored why of reason.
func whyOf(reason string) string {
	if w, ok := whys[reason]; ok {
		return w
	}
	return "Nothing was performed."
}
