// RawJSON: the type of raw JSON values in the package's API.

package session

import "github.com/agentwasm/agentwasm/internal/rawjson"

// RawJSON is a raw, already-encoded JSON value. It is json.RawMessage
// itself (an alias) in native builds, so code that passes, stores or
// marshals json.RawMessage values works unchanged. In the wasm builds it
// is []byte, to which a json.RawMessage converts freely: those builds
// link no encoding/json (docs/SIZE.md says why).
type RawJSON = rawjson.Message
