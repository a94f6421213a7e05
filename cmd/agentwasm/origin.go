// The origin policy of everything agentwasm dev serves under /api: who may
// call the Studio proxy (which spends the upstream key) and the MCP server.
//
// A request is served only when its Host names this server (a loopback name
// at the port the connection reached, the specific address given with
// --addr, or a host given with --allow-host) and its Origin, when present,
// is the server's own origin or one given with --allow-origin. A POST (or
// PUT, PATCH) must be application/json, so no CORS simple request
// (text/plain, a form) gets through, and a cross-site request that carries
// no Origin is refused too. Allowed cross origins get CORS answers, the
// preflight included.

package main

import (
	"encoding/json"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// corsAllowHeaders are the request headers a page of an allowed origin may
// send: those of a session's chat request (Content-Type, Accept,
// Authorization with a token) and of its MCP client (Last-Event-ID on a
// resumed stream), and the W3C trace context a traced session sends on
// both (traceparent, tracestate; the proxy passes them on upstream); every
// Mcp-* header (Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name,
// Mcp-Param-*) is allowed as well.
var corsAllowHeaders = []string{"Content-Type", "Accept", "Authorization", "Last-Event-ID", "traceparent", "tracestate"}

// corsExposeHeaders are the response headers a page of an allowed origin
// may read.
const corsExposeHeaders = "Mcp-Session-Id, MCP-Protocol-Version, Retry-After"

// corsAllowMethods are the methods served under /api.
const corsAllowMethods = "GET, HEAD, POST, DELETE"

// corsMaxAge is how long (seconds) a browser may keep a preflight answer.
const corsMaxAge = "600"

// hostRule is one --allow-host value: a lower-case host name or IP, and a
// port ("" means the port the server listens on).
type hostRule struct{ name, port string }

// originPolicy decides which requests under /api are served.
type originPolicy struct {
	hosts   []hostRule
	origins []string          // normalized scheme://host[:port]
	log     func(line string) // when set, one line per refusal
}

// newOriginPolicy validates the --allow-host and --allow-origin values.
func newOriginPolicy(hosts, origins []string) (*originPolicy, error) {
	p := &originPolicy{}
	for _, h := range hosts {
		r, err := parseAllowHost(h)
		if err != nil {
			return nil, err
		}
		p.hosts = append(p.hosts, r)
	}
	for _, o := range origins {
		n, err := parseAllowOrigin(o)
		if err != nil {
			return nil, err
		}
		p.origins = append(p.origins, n)
	}
	return p, nil
}

// parseAllowHost reads HOST or HOST:PORT (an IPv6 address in brackets).
func parseAllowHost(s string) (hostRule, error) {
	bad := func(why string) (hostRule, error) {
		return hostRule{}, fmt.Errorf("--allow-host %q: %s; give a host name or address as browsers reach the server, with an optional port (studio.lan, 192.168.1.5:8080, [fe80::1])", s, why)
	}
	if s == "" || strings.ContainsAny(s, "/@?#* \t") {
		return bad("not a host")
	}
	name, port, err := net.SplitHostPort(s)
	if err != nil {
		name, port = s, ""
		if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
			name = s[1 : len(s)-1]
		} else if strings.Contains(s, ":") && net.ParseIP(s) == nil {
			return bad("not a host")
		}
	}
	if name == "" {
		return bad("no host name")
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return bad("the port is not a number from 1 to 65535")
		}
	}
	return hostRule{name: strings.ToLower(name), port: port}, nil
}

// parseAllowOrigin reads an origin, scheme://host[:port] with no path, and
// returns it as browsers send it: lower case, without a default port.
func parseAllowOrigin(s string) (string, error) {
	n, ok := normalizeOrigin(strings.TrimSuffix(s, "/"))
	if !ok {
		return "", fmt.Errorf("--allow-origin %q: not an origin; give scheme://host[:port] with no path, as the page's address bar shows it (http://127.0.0.1:5173, https://app.example.com)", s)
	}
	return n, nil
}

// normalizeOrigin returns an http or https origin as browsers serialize it;
// ok is false for anything else ("null", a path, user info, a query).
func normalizeOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "#") {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if host == "" {
		return "", false
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", false
		}
	}
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return u.Scheme + "://" + host, true
}

// isLoopbackHostName reports whether name is one of the loopback names a
// person types: localhost, 127.0.0.1 or ::1.
func isLoopbackHostName(name string) bool {
	return name == "localhost" || name == "127.0.0.1" || name == "::1"
}

// hostServed reports whether hostport (a Host value, or an origin's
// host[:port] with defaultPort for its scheme) names this server, whose
// connection reached local (host:port).
func (p *originPolicy) hostServed(hostport, defaultPort, local string) bool {
	name, port, err := net.SplitHostPort(hostport)
	if err != nil {
		name, port = strings.Trim(hostport, "[]"), defaultPort
	}
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	_, localPort, err := net.SplitHostPort(local)
	if err != nil || name == "" {
		return false
	}
	for _, r := range p.hosts {
		if r.name == name && (r.port == port || (r.port == "" && port == localPort)) {
			return true
		}
	}
	return port == localPort && isLoopbackHostName(name)
}

// ownOrigin reports whether origin (normalized) is one of the server's own:
// http://<a host it serves>.
func (p *originPolicy) ownOrigin(origin, local string) bool {
	rest, ok := strings.CutPrefix(origin, "http://")
	return ok && p.hostServed(rest, "80", local)
}

// wrap applies the policy to next: refusals are answered
// {"error":{"code","message"}} with 403 (forbidden_host, forbidden_origin,
// forbidden_method, forbidden_header) or 415 (unsupported_media_type);
// an allowed origin's preflight is answered 204.
func (p *originPolicy) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.log != nil {
			w = &refusalLog{ResponseWriter: w, r: r, log: p.log}
		}
		local := ""
		if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && a != nil {
			local = a.String()
		}
		if !p.hostServed(r.Host, "80", local) {
			apiError(w, http.StatusForbidden, "forbidden_host",
				"Host "+strconv.Quote(r.Host)+" is not this server: reach it at http://127.0.0.1:<port>/ or http://localhost:<port>/, or start agentwasm dev with --allow-host "+hostOnlyName(r.Host)+" if that name is yours (a name that is not, such as a rebound one, lets any page spend your key)")
			return
		}
		h := w.Header()
		h.Add("Vary", "Origin")
		rawOrigin, hasOrigin := r.Header["Origin"]
		origin := ""
		if hasOrigin {
			origin = strings.Join(rawOrigin, ",")
			n, ok := normalizeOrigin(origin)
			if !ok || !(p.ownOrigin(n, local) || slices.Contains(p.origins, n)) {
				apiError(w, http.StatusForbidden, "forbidden_origin",
					"a page at "+strconv.Quote(origin)+" may not call this server: only its own pages and origins given with --allow-origin may (start agentwasm dev with --allow-origin scheme://host:port to allow a page of yours)")
				return
			}
			origin = n
			if origin != "http://"+strings.ToLower(r.Host) {
				// Another origin allowed: it reads the answers through CORS.
				// (The MCP handler sets its own exposed headers; the policy's
				// list, which includes them, is the one sent.)
				h.Set("Access-Control-Allow-Origin", origin)
				h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
				w = &exposeWriter{ResponseWriter: w}
			}
		} else if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
			apiError(w, http.StatusForbidden, "forbidden_origin",
				"a "+site+" request without an Origin may not call this server; call it with fetch from an allowed origin")
			return
		}
		if reqMethod := r.Header.Get("Access-Control-Request-Method"); r.Method == http.MethodOptions && reqMethod != "" {
			p.preflight(w, r, origin, reqMethod)
			return
		}
		if r.Method == http.MethodPost || r.Method == http.MethodPut || r.Method == http.MethodPatch {
			mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			if err != nil || mt != "application/json" {
				apiError(w, http.StatusUnsupportedMediaType, "unsupported_media_type",
					"POST the request as Content-Type: application/json (got "+strconv.Quote(r.Header.Get("Content-Type"))+")")
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// preflight answers a CORS preflight of an allowed origin: 204 with the
// methods and headers allowed, or 403 naming what is not.
func (p *originPolicy) preflight(w http.ResponseWriter, r *http.Request, origin, method string) {
	// A refused preflight carries no CORS grant.
	w.Header().Del("Access-Control-Allow-Origin")
	w.Header().Del("Access-Control-Expose-Headers")
	if origin == "" {
		apiError(w, http.StatusForbidden, "forbidden_origin", "a preflight request needs an Origin")
		return
	}
	if !slices.Contains([]string{"GET", "HEAD", "POST", "DELETE"}, method) {
		apiError(w, http.StatusForbidden, "forbidden_method", "method "+strconv.Quote(method)+" is not served here; use "+corsAllowMethods)
		return
	}
	allow := slices.Clone(corsAllowHeaders)
	for _, v := range r.Header.Values("Access-Control-Request-Headers") {
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			switch {
			case name == "":
			case slices.ContainsFunc(corsAllowHeaders, func(a string) bool { return strings.EqualFold(a, name) }):
			case len(name) > 4 && strings.EqualFold(name[:4], "mcp-") && isToken(name):
				allow = append(allow, name)
			default:
				apiError(w, http.StatusForbidden, "forbidden_header", "request header "+strconv.Quote(name)+" is not allowed here; allowed: "+strings.Join(corsAllowHeaders, ", ")+" and Mcp-*")
				return
			}
		}
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Allow-Methods", corsAllowMethods)
	h.Set("Access-Control-Allow-Headers", strings.Join(allow, ", "))
	h.Set("Access-Control-Max-Age", corsMaxAge)
	if r.Header.Get("Access-Control-Request-Private-Network") == "true" {
		h.Set("Access-Control-Allow-Private-Network", "true")
	}
	w.WriteHeader(http.StatusNoContent)
}

// exposeWriter keeps the policy's Access-Control-Expose-Headers when the
// handler behind it sets its own.
type exposeWriter struct {
	http.ResponseWriter
	wrote bool
}

// WriteHeader restores the exposed headers, then writes the header.
func (e *exposeWriter) WriteHeader(code int) {
	if !e.wrote {
		e.wrote = true
		e.Header().Set("Access-Control-Expose-Headers", corsExposeHeaders)
	}
	e.ResponseWriter.WriteHeader(code)
}

// Write writes the header first when the handler has not.
func (e *exposeWriter) Write(b []byte) (int, error) {
	if !e.wrote {
		e.WriteHeader(http.StatusOK)
	}
	return e.ResponseWriter.Write(b)
}

// Flush flushes the answer (event streams).
func (e *exposeWriter) Flush() {
	if !e.wrote {
		e.WriteHeader(http.StatusOK)
	}
	_ = http.NewResponseController(e.ResponseWriter).Flush() // http.Flusher reports no error
}

// Unwrap gives http.ResponseController the writer underneath.
func (e *exposeWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// refusalLog logs one line when the policy refuses a request: its status,
// method, path, Host and Origin (quoted: they are the caller's text).
type refusalLog struct {
	http.ResponseWriter
	r   *http.Request
	log func(string)
}

// refuse logs the refusal (apiError calls it through the writer).
func (l *refusalLog) refuse(status int, code string) {
	l.log(fmt.Sprintf("api: refused %d %s: %s %s, Host %s, Origin %s", status, code, l.r.Method, strconv.Quote(l.r.URL.Path),
		strconv.Quote(l.r.Host), strconv.Quote(l.r.Header.Get("Origin"))))
}

// Unwrap gives http.ResponseController the writer underneath.
func (l *refusalLog) Unwrap() http.ResponseWriter { return l.ResponseWriter }

// Flush flushes the answer (event streams).
func (l *refusalLog) Flush() { _ = http.NewResponseController(l.ResponseWriter).Flush() }

// isToken reports whether s is an HTTP header name.
func isToken(s string) bool {
	for _, c := range s {
		if !(c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

// hostOnlyName is the host name of a Host value, for a message.
func hostOnlyName(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// apiError answers {"error":{"code","message"}} with status.
func apiError(w http.ResponseWriter, status int, code, message string) {
	for x := w; ; {
		if l, ok := x.(*refusalLog); ok {
			l.refuse(status, code)
			break
		}
		u, ok := x.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		x = u.Unwrap()
	}
	b, _ := json.Marshal(map[string]map[string]string{"error": {"code": code, "message": message}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache") // not no-store: Chromium reports a no-store answer read through a stream as aborted
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
