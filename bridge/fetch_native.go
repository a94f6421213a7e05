//go:build !js && !wasip1

// The native Fetcher, on net/http. Never compiled into the wasm builds.

package bridge

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/agentwasm/agentwasm/internal/sameorigin"
)

// HTTPFetcher is a Fetcher on a net/http client, for Go programs and tests
// that run agentwasm natively.
//
// Credentials stay with their origin (scheme, host and port). A request
// carrying any header other than Accept, Accept-Language, Cache-Control,
// Content-Language, Content-Type, Last-Event-ID, Mcp-Method, Mcp-Name,
// MCP-Protocol-Version and User-Agent (Authorization above all, with a
// session's token; Cookie, Mcp-Session-Id, API-key headers) follows a
// redirect only within the origin of its URL: a redirect to another origin
// fails the fetch with a *FetchError saying which origin and which headers,
// never their values, and nothing is sent there. (net/http alone would
// carry Authorization to another port or scheme of the same host, and
// re-send the body with 307 and 308.) A request without such headers
// follows redirects to other origins, as a browser's fetch does.
type HTTPFetcher struct {
	// Client sends the requests; nil means http.DefaultClient. It is used
	// through a copy with the redirect policy above, checked then by the
	// client's own CheckRedirect if it has one; the client is not changed.
	Client *http.Client
}

// DefaultFetcher returns the host's own fetcher: on native builds an
// HTTPFetcher on http.DefaultClient.
func DefaultFetcher() Fetcher { return &HTTPFetcher{} }

// Fetch sends req with f.Client. The response body is streamed; cancelling
// ctx aborts it.
func (f *HTTPFetcher) Fetch(ctx context.Context, req *Request) (*Response, error) {
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method(), req.URL, body)
	if err != nil {
		return nil, &FetchError{URL: req.URL, Err: err}
	}
	for k, v := range req.Header {
		hr.Header.Set(k, v)
	}
	client := f.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := sameOriginClient(client).Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctxErr(ctx)
		}
		var re *sameorigin.RedirectError
		if errors.As(err, &re) {
			err = redirectRefused(re) // its text says it all; the *url.Error's would repeat the URL
		}
		return nil, &FetchError{URL: req.URL, Err: err}
	}
	h := make(Header, len(resp.Header))
	for k, vs := range resp.Header {
		h[strings.ToLower(k)] = strings.Join(vs, ", ")
	}
	return &Response{Status: resp.StatusCode, Header: h, Body: &nativeBody{ctx: ctx, rc: resp.Body}}, nil
}

// nativeBody reports a cancelled context as the context's error rather than
// net/http's wrapped variant.
type nativeBody struct {
	ctx context.Context
	rc  io.ReadCloser
}

func (b *nativeBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF && b.ctx.Err() != nil {
		return n, ctxErr(b.ctx)
	}
	return n, err
}

func (b *nativeBody) Close() error { return b.rc.Close() }
