// Package bridge is agentwasm's one seam to the network.
//
// Everything the module sends or receives over HTTP goes through a [Fetcher]:
// a request (method, URL, headers, body) goes in, a response (status,
// headers, streaming body) comes out, and cancelling the context aborts both
// the request and any read of its body. There is one implementation per host,
// chosen by build tags the way net/http chooses roundtrip_js.go:
//
//   - fetch_js.go (GOOS=js) calls a JavaScript fetch function, aborts through
//     an AbortController and reads the ReadableStream body incrementally.
//   - fetch_wasip1.go (GOOS=wasip1) calls the host imports documented in
//     wasm/README.md, with a wait bound on every read so that one silent
//     stream never stalls the module's other goroutines.
//   - fetch_native.go (every other GOOS) uses net/http. It is never compiled
//     into either wasm build. Its redirect policy (redirect_native.go) keeps
//     a request's credentials with their origin: a request that carries a
//     token, a cookie or a session id is never redirected to another scheme,
//     host or port. (A browser's fetch drops Authorization on such a redirect
//     by itself; the wasip1 host decides for its own fetches.)
//
// The package also holds the server-sent events reader ([SSEReader]) that the
// chat stream and the MCP client share. In the js build it imports nothing
// but the standard library; natively it also imports internal/sameorigin
// (the redirect policy), and the wasip1 build internal/wire, for the JSON
// heads of its host calls.
package bridge
