// Static files of the dev server: the demo page and the built module, with
// the right media types and precompressed twins (name.br, name.gz) served to
// browsers that accept them.

package main

import (
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// mediaTypes are the types the assets need whatever the system's table says.
var mediaTypes = map[string]string{
	".wasm": "application/wasm",
	".mjs":  "text/javascript; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".json": "application/json",
	".ts":   "text/plain; charset=utf-8",
	".mts":  "text/plain; charset=utf-8",
	".png":  "image/png",
	".svg":  "image/svg+xml",
}

// encodings are the precompressed twins, best first.
var encodings = []struct{ token, ext string }{{"br", ".br"}, {"gzip", ".gz"}}

// assets serves the files of dir. "/" is index.html; a name.br or name.gz
// beside a file, no older than it, is served instead when the request
// accepts that encoding (Vary: Accept-Encoding). Directory listings and dot
// files are not served.
func assets(dir string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := path.Clean("/" + r.URL.Path)
		if strings.HasSuffix(name, "/") || name == "/" {
			name = path.Join(name, "index.html")
		}
		if strings.Contains(name, "/.") {
			http.NotFound(w, r)
			return
		}
		file := filepath.Join(dir, filepath.FromSlash(name))
		if st, err := os.Stat(file); err == nil && st.IsDir() {
			file = filepath.Join(file, "index.html")
		}
		if st, err := os.Stat(file); err != nil || st.IsDir() {
			http.NotFound(w, r)
			return
		}
		serveFile(w, r, file)
	})
}

// serveFile serves one file, or its precompressed twin.
func serveFile(w http.ResponseWriter, r *http.Request, file string) {
	ext := filepath.Ext(file)
	ctype := mediaTypes[ext]
	if ctype == "" {
		ctype = mime.TypeByExtension(ext)
	}
	if ctype != "" {
		w.Header().Set("Content-Type", ctype)
	}
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Add("Vary", "Accept-Encoding")
	accept := r.Header.Get("Accept-Encoding")
	orig, err := os.Stat(file)
	for _, e := range encodings {
		if err != nil || !acceptsEncoding(accept, e.token) {
			continue
		}
		// A twin older than its file is stale (the file was rebuilt since):
		// the file itself is served instead.
		if st, err := os.Stat(file + e.ext); err == nil && !st.IsDir() && !st.ModTime().Before(orig.ModTime()) {
			w.Header().Set("Content-Encoding", e.token)
			http.ServeFile(w, r, file+e.ext)
			return
		}
	}
	http.ServeFile(w, r, file)
}

// acceptsEncoding reports whether an Accept-Encoding value admits token
// (a q=0 refuses it).
func acceptsEncoding(header, token string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), token) {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}
