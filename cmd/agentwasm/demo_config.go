// GET /api/demo/config: which way the demo page's session talks to its
// model — through the Studio AI proxy under /api (the default, answered
// `{}`), or straight to an OpenAI-compatible endpoint (--direct: the dev
// server's own /openai/v1; --direct-url URL: that endpoint, called by the
// page itself) — and the flags that choose it.

package main

import (
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentwasm/agentwasm/cmd/agentwasm/internal/studioproxy"
)

// demoConfigPath is where the demo page reads how to reach its model.
const demoConfigPath = "/api/demo/config"

// directBase is the base URL of the dev server's own OpenAI-compatible
// endpoint (POST /openai/v1/chat/completions), as the page names it: a
// path on the page's own origin, so no CORS and no key in the page.
const directBase = "/openai/v1"

// demoConfig is the answer of GET /api/demo/config.
type demoConfig struct {
	// Model, when set, is the OpenAI-compatible endpoint the page's session
	// talks to directly (createSession's model option); nil means the
	// Studio AI proxy under /api.
	Model *demoModel `json:"model,omitempty"`
	// Scripted says the direct endpoint answers with the scripted model, so
	// the page offers the scripted model's suggestions. With the proxy the
	// page reads that from the proxy's capabilities instead.
	Scripted bool `json:"scripted,omitempty"`
}

// demoModel is createSession's model option as the page is given it: no
// key, ever (a key handed to a page is readable by anyone who can run
// script in it).
type demoModel struct {
	BaseURL string `json:"baseUrl"`
	Name    string `json:"name"`
}

// registerDirectFlags adds --direct and --direct-url to the dev server's
// flags.
func registerDirectFlags(fs *flag.FlagSet, o *devOptions) {
	fs.BoolVar(&o.Direct, "direct", false, "the demo page talks to this server's OpenAI-compatible endpoint ("+directBase+") directly instead of the Studio AI proxy: the scripted model, or with --upstream a pass-through that adds the upstream's key")
	fs.StringVar(&o.DirectURL, "direct-url", "", "the demo page talks to this OpenAI-compatible base URL itself (e.g. http://127.0.0.1:11434/v1, with --model): no key is sent, and the endpoint must allow the page's origin (CORS)")
}

// checkDirect validates the direct flags once parsed: --direct-url is an
// absolute http(s) URL without a query, a fragment or credentials, names
// its model with --model and goes without --upstream; --direct with
// --upstream names its model with --model too. --direct-url implies
// --direct.
func checkDirect(o *devOptions) error {
	if o.DirectURL != "" {
		o.Direct = true
		if err := validDirectURL(o.DirectURL); err != nil {
			return err
		}
		o.DirectURL = strings.TrimRight(o.DirectURL, "/")
		if o.Upstream != "" {
			return errors.New("--direct-url and --upstream: the page would talk to the --direct-url endpoint and never use the upstream; give --direct-url alone, or --upstream with --direct (the page then talks to " + directBase + " on this server, which adds the upstream's key)")
		}
		if o.Model == "" {
			return errors.New("--direct-url needs --model, the model the page asks the endpoint for (make run DIRECT_URL=… MODEL=llama3.2)")
		}
		return nil
	}
	if o.Direct && o.Upstream == "" && o.OpenAIKey != "" {
		return errors.New("--direct with --openai-key: the demo page has no key to send, so every turn would end 401; leave --openai-key (and " + openAIKeyEnv + ") out, or drop --direct")
	}
	if o.Direct && o.Upstream != "" && o.Model == "" {
		return errors.New("--direct with --upstream needs --model, the model the page names in its requests (make run DIRECT=1 UPSTREAM=… MODEL=…)")
	}
	return nil
}

// validDirectURL accepts an absolute http or https URL with a host and no
// query, fragment or user info: the page appends the chat path to it, and
// the page shows it, so it may hold no secret. A refusal does not repeat
// the URL, which may hold one.
func validDirectURL(s string) error {
	bad := func(why string) error {
		return errors.New("--direct-url: " + why + "; give the endpoint's base as an http:// or https:// URL such as http://127.0.0.1:11434/v1")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return bad("the value is not an absolute http(s) URL")
	}
	if u.User != nil || strings.Contains(s, "@") {
		return bad("the URL carries credentials, which would sit in the page (for a key, use --upstream with --direct: the server adds it)")
	}
	if strings.ContainsAny(s, "?#") {
		return bad("the URL has a query or a fragment, which may hold a secret")
	}
	return nil
}

// demoConfig returns what GET /api/demo/config answers for o.
func (o devOptions) demoConfig() demoConfig {
	switch {
	case o.DirectURL != "":
		return demoConfig{Model: &demoModel{BaseURL: o.DirectURL, Name: o.Model}}
	case o.Direct && o.Upstream != "":
		return demoConfig{Model: &demoModel{BaseURL: directBase, Name: o.Model}}
	case o.Direct:
		return demoConfig{Model: &demoModel{BaseURL: directBase, Name: studioproxy.ScriptedModelName}, Scripted: true}
	}
	return demoConfig{}
}

// directNote is the line agentwasm dev prints under its URL when the page
// talks to a model directly, "" otherwise.
func (o devOptions) directNote() string {
	c := o.demoConfig()
	if c.Model == nil {
		return ""
	}
	note := "the demo page talks to " + c.Model.BaseURL + " directly (OpenAI-compatible, model " + c.Model.Name + ")"
	if o.DirectURL != "" {
		note += "; that endpoint must allow the page's origin (CORS), and no key is sent"
	}
	return note
}

// demoConfigHandler answers GET (and HEAD) with c as JSON; another method
// is 405 with {"error":{code,message}}. It sits behind the /api origin
// policy like the rest of /api.
func demoConfigHandler(c demoConfig) http.Handler {
	body, _ := json.Marshal(c)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			apiError(w, http.StatusMethodNotAllowed, "method_not_allowed", "GET "+demoConfigPath+" to read how the demo page reaches its model")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-cache")
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(body)
	})
}
