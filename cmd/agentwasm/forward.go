// The forwarder of agentwasm chat --wasm: the module's fetches, which
// wazerotest hands to an http.Handler, sent on to the proxy (and the
// --openai-url endpoint) over the network, streaming both ways.

package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentwasm/agentwasm/internal/sameorigin"
	"github.com/agentwasm/agentwasm/wazerotest"
)

// hopHeaders are the hop-by-hop headers a forwarder must not pass on.
var hopHeaders = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Authenticate": true, "Proxy-Authorization": true,
	"Te": true, "Trailer": true, "Transfer-Encoding": true, "Upgrade": true, "Proxy-Connection": true,
}

// forwarder serves the module's fetches by sending them to one of its
// targets' origins over net/http, streaming both bodies.
type forwarder struct {
	targets []*url.URL // the first also takes relative requests
	client  *http.Client
}

// newForwarder returns the handler for wazerotest.Options.Handler: a fetch
// goes to the target of its own scheme and host, and a relative one (which
// wazerotest resolves against wazerotest.BaseURL) to the first target. As
// the native fetcher's, a copy of client refuses a redirect to another
// origin of a fetch that carries credentials (the endpoint's key, the
// proxy's token): net/http alone keeps Authorization on a redirect to
// another port of the same host, to a subdomain or from https to http.
func newForwarder(client *http.Client, targets ...*url.URL) http.Handler {
	return &forwarder{targets: targets, client: sameorigin.Client(client, sameorigin.Credentialed)}
}

// target returns the origin r goes to, or nil when it is none of the
// targets'.
func (f *forwarder) target(r *http.Request) *url.URL {
	h := r.URL.Host
	if h == "" || "http://"+h == wazerotest.BaseURL {
		return f.targets[0]
	}
	for _, t := range f.targets {
		if t.Host == h && (r.URL.Scheme == "" || r.URL.Scheme == t.Scheme) {
			return t
		}
	}
	return nil
}

// forwardError is the panic value that fails one fetch: wazerotest turns a
// handler's panic into a failed fetch with its text, which is how a
// transport error reaches the module.
type forwardError struct{ err error }

// Error returns the failed forward's error text.
func (e forwardError) Error() string { return e.err.Error() }

// ServeHTTP sends r on to the base URL's host and streams the answer back,
// flushing after every read so server-sent events arrive as they are sent.
func (f *forwarder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	to := f.target(r)
	if to == nil {
		hosts := make([]string, len(f.targets))
		for i, t := range f.targets {
			hosts[i] = t.Host
		}
		panic(forwardError{fmt.Errorf("agentwasm chat --wasm forwards requests to %s only, not to %s", strings.Join(hosts, " and "), r.URL.Host)})
	}
	target := to.Scheme + "://" + to.Host + r.URL.RequestURI()
	var body io.Reader = http.NoBody
	if r.ContentLength != 0 && r.Body != nil {
		body = r.Body
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, target, body)
	if err != nil {
		panic(forwardError{err})
	}
	if r.ContentLength > 0 {
		out.ContentLength = r.ContentLength
	}
	for k, vs := range r.Header {
		if !hopHeaders[http.CanonicalHeaderKey(k)] && !strings.EqualFold(k, "Host") {
			out.Header[k] = append([]string(nil), vs...)
		}
	}
	resp, err := f.client.Do(out)
	if err != nil {
		if r.Context().Err() != nil {
			return // the module closed the request
		}
		panic(forwardError{err})
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		if !hopHeaders[http.CanonicalHeaderKey(k)] {
			w.Header()[k] = append([]string(nil), vs...)
		}
	}
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return // the module closed the request
			}
			_ = rc.Flush()
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			if r.Context().Err() != nil {
				return
			}
			panic(forwardError{err})
		}
	}
}
