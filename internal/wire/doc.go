// Package wire holds agentwasm's JSON wire types and their codecs.
//
// Wire types are kept apart from the API types of session/ and serve/: they
// spell the bytes that cross a boundary (the Studio AI proxy's chat request
// and SSE events, the wasm command layer's commands and replies, the wasip1
// fetch ABI), while the API types are what Go callers hold. Converting
// between the two is the owning package's job. Where the bytes are an API
// type's own — the turn, its parts and the session events the module sends —
// there is no wire type: session's types carry the json tags and codecs
// generated the same way as these.
//
// The *_easyjson.go files are generated: run `make generate` after changing a
// type marked //easyjson:json. The easyjson generator writes them, and one
// program, internal/wire/internal/codecgen (its doc says what it does),
// rewrites its output: the code reads through internal/jsonr and writes
// through internal/jsonw, each type's methods are ReadJSON and WriteJSON
// (Unmarshaler and Marshaler; a type marked //agentwasm:decode-only or
// //agentwasm:encode-only keeps one), and each struct's codecs are two
// tables of its fields — decodeT, a []jsonr.Field that jsonr's
// Lexer.Object reads, and encodeT, a []jsonw.Field that jsonw's
// Writer.Struct writes — since a generated function per struct and
// direction costs kilobytes of wasm. None of it uses encoding/json's
// reflection, which keeps the wasm modules small and fast.
package wire

//go:generate go run ./internal/codecgen
