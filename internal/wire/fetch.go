// Fetch wire types: the request and response heads that cross the wasip1
// fetch ABI (see wasm/README.md). Bodies cross as raw bytes, not JSON.

package wire

// FetchRequest is the head of a request the module asks the host to send.
// Header names are lower case.
//
//easyjson:json
//agentwasm:encode-only
type FetchRequest struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
}

// FetchResponse is the head of a response the host received.
// Header names are lower case; repeated fields are joined with ", ".
//
//easyjson:json
//agentwasm:decode-only
type FetchResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
}
