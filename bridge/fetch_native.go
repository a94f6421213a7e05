//go:build !js && !wasip1

// The native Fetcher, on net/http. Never compiled into the wasm builds.

package bridge

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
)

// HTTPFetcher is a Fetcher on a net/http client, for Go programs and tests
// that run agentwasm natively.
type HTTPFetcher struct {
	// Client sends the requests; nil means http.DefaultClient.
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
	resp, err := client.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctxErr(ctx)
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
