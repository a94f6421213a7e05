//go:build !js && !wasip1

// Package rawjson names the type of raw, already-encoded JSON values in the
// APIs of session and serve and in the internal JSON toolkit: json.RawMessage
// itself in native builds, plain bytes in the wasm builds, which then link
// no encoding/json (rawjson_wasm.go says why).
package rawjson

import "encoding/json"

// Message is a raw JSON value: json.RawMessage itself (an alias) in native
// builds, so code that passes, stores or marshals json.RawMessage values
// works unchanged.
type Message = json.RawMessage
