// Package wire holds agentwasm's JSON wire types and their easyjson codecs.
//
// Wire types are kept apart from the API types of session/ and serve/: they
// spell the bytes that cross a boundary (the Studio AI proxy's chat request
// and SSE events, the wasm command layer's commands and replies, the wasip1
// fetch ABI), while the API types are what Go callers hold. Converting
// between the two is the owning package's job.
//
// The *_easyjson.go files are generated: run `make generate` after changing a
// type marked //easyjson:json. They avoid encoding/json's reflection, which
// keeps the wasm modules small and fast. easyjson writes them; tables.go then
// turns each struct's codecs into two tables of its fields — decodeT, a
// []jsonr.Field that jsonr's Lexer.Object reads, and encodeT, a []jsonw.Field
// that jsonw's Writer.Struct writes — since a generated function per struct
// and direction cost kilobytes of wasm each.
package wire

//go:generate sh generate.sh
