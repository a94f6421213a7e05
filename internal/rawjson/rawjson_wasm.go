//go:build js || wasip1

// The wasm builds' raw JSON type: plain bytes. Importing encoding/json for
// its RawMessage type would link the package's initialization, which keeps
// parts of reflect, and with it fmt and os (docs/SIZE.md).

package rawjson

// Message is a raw JSON value: []byte in the wasm builds. A
// json.RawMessage converts to it freely (the same underlying type).
type Message = []byte
