// Studio classification: what a discovered tool's _meta["honua.studio"] (or
// annotations["honua.studio"]) says about it.

package wire

import "github.com/agentwasm/agentwasm/internal/rawjson"

// StudioMeta is a tool's _meta or annotations object, read only for its
// "honua.studio" key.
//
//easyjson:json
//agentwasm:decode-only
type StudioMeta struct {
	Studio *StudioClassification `json:"honua.studio,omitempty"`
}

// StudioClassification is {family?, view?, revision?}. Revision may be a
// string or a number, so it is kept raw.
//
//easyjson:json
type StudioClassification struct {
	Family   string          `json:"family,omitempty"`
	View     string          `json:"view,omitempty"`
	Revision rawjson.Message `json:"revision,omitempty"`
}

// DraftCarrier finds a draft binding in a tool result: {draftId,
// generation} at the top level, or under "draft".
//
//easyjson:json
//agentwasm:decode-only
type DraftCarrier struct {
	DraftID    string `json:"draftId,omitempty"`
	Generation *int64 `json:"generation,omitempty"`
	Draft      *Draft `json:"draft,omitempty"`
}
