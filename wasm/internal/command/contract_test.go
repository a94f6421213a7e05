//go:build !js && !wasip1

// Tests that tie the names of the three faces together: the option names
// of the loader (web/agentwasm.mjs), of the wire types the module decodes
// (internal/wire) and of the declarations (web/agentwasm.d.ts), and the
// error codes the module and the loader emit against the declarations' and
// wasm/README.md's lists. The loader and the declarations are read as text.

package command_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	loaderPath = "../../../web/agentwasm.mjs"
	dtsPath    = "../../../web/agentwasm.d.ts"
	readmePath = "../../README.md"
)

// readText reads a file of the repository.
func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

var (
	quoted     = regexp.MustCompile(`'([^']+)'`)
	identifier = regexp.MustCompile(`^[A-Za-z_$][\w$]*`)
)

// loaderSet returns the names of the loader's `const NAME = new Set([…])`.
func loaderSet(t *testing.T, src, name string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?s)const ` + name + ` = new Set\(\[(.*?)\]\)`).FindStringSubmatch(src)
	require.NotNil(t, m, "web/agentwasm.mjs has no `const %s = new Set([…])`; update this test with the loader", name)
	var out []string
	for _, q := range quoted.FindAllStringSubmatch(m[1], -1) {
		out = append(out, q[1])
	}
	return out
}

// loaderDestructured returns the names of the first `const { a, b: c = d,
// ...rest } = <from>;` after marker in the loader, without the rest element.
func loaderDestructured(t *testing.T, src, marker, from string) []string {
	t.Helper()
	i := strings.Index(src, marker)
	require.GreaterOrEqual(t, i, 0, "web/agentwasm.mjs has no %q; update this test with the loader", marker)
	end := strings.Index(src[i:], "} = "+from+";")
	require.GreaterOrEqual(t, end, 0, "no `const {…} = %s;` after %q in web/agentwasm.mjs", from, marker)
	body := src[i : i+end]
	start := strings.LastIndex(body, "const {")
	require.GreaterOrEqual(t, start, 0, "no `const {…} = %s;` after %q in web/agentwasm.mjs", from, marker)
	var out []string
	for _, part := range strings.Split(body[start+len("const {"):], ",") {
		part = strings.TrimSpace(part)
		if part == "" || strings.HasPrefix(part, "...") {
			continue
		}
		out = append(out, identifier.FindString(part))
	}
	return out
}

// loaderList returns the names of the first `[…].includes(name)` after
// marker in the loader: the allowed keys of a nested option object.
func loaderList(t *testing.T, src, marker string) []string {
	t.Helper()
	i := strings.Index(src, marker)
	require.GreaterOrEqual(t, i, 0, "web/agentwasm.mjs has no %q; update this test with the loader", marker)
	m := regexp.MustCompile(`\[([^\]]*)\]\.includes\(name\)`).FindStringSubmatch(src[i:])
	require.NotNil(t, m, "no `[…].includes(name)` after %q in web/agentwasm.mjs", marker)
	var out []string
	for _, q := range quoted.FindAllStringSubmatch(m[1], -1) {
		out = append(out, q[1])
	}
	return out
}

// dtsMembers returns the member names of `export interface NAME {…}` in the
// declarations: the lines indented two spaces that start with a name.
func dtsMembers(t *testing.T, src, name string) []string {
	t.Helper()
	head := "export interface " + name + " {\n"
	i := strings.Index(src, head)
	require.GreaterOrEqual(t, i, 0, "web/agentwasm.d.ts has no interface %s", name)
	body := src[i+len(head):]
	body = body[:strings.Index(body, "\n}\n")]
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^  ([A-Za-z_$][\w$]*)\??[:(]`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	require.NotEmpty(t, out, "interface %s of web/agentwasm.d.ts has no members", name)
	return out
}

// jsonFields returns the JSON names of a wire struct's fields.
func jsonFields(v any) []string {
	rt := reflect.TypeOf(v)
	var out []string
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// jsonKind returns the kind of the wire struct field with JSON name name.
func jsonKind(t *testing.T, v any, name string) reflect.Kind {
	t.Helper()
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		if n, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ","); n == name {
			return rt.Field(i).Type.Kind()
		}
	}
	t.Fatalf("%s has no field %q", rt, name)
	return reflect.Invalid
}

// union returns the sorted, deduplicated names of the lists.
func union(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// jsSessionOptions says how each session option the loader handles itself
// (JS_OPTIONS) reaches the module: the wire.SessionOptions fields it
// becomes, none when it stays in JavaScript. Callbacks cannot cross as
// JSON, so a hook the page supplies travels as a boolean saying it exists
// (wasm/README.md, the hook table).
var jsSessionOptions = map[string][]string{
	"auth":                 {"auth"},                     // a function or {getAccessToken}: auth: true, the auth hook
	"execute":              {"execute"},                  // a function: execute: true, the execute hook
	"fetchImpl":            nil,                          // the fetch function is session.create's fetch hook, not an option of the module
	"kit":                  {"kit", "port"},              // a kit object: {tools, execute: bool, systemPrompt: bool}; a Port: its id as port
	"mcpClient":            {"mcpClient"},                // an object: mcpClient: true, the mcp.* hooks
	"model":                {"model", "openai"},          // a string as given; an endpoint object: its name as model, {baseUrl, apiKey: bool} as openai (the apiKey hook)
	"onEvent":              nil,                          // the observer is session.create's event hook; the module always sends events
	"onStepFinish":         nil,                          // an observer of the stepFinish events the module sends to the event hook
	"restore":              {"restore"},                  // a snapshot object as given; its JSON text parsed (text that is no JSON: bad_snapshot)
	"studioTools":          {"studioTools"},              // the lists as given, approve as a boolean (the studioTools.approve hook)
	"system":               {"system", "systemFunction"}, // a string as given; a function: systemFunction: true, the system hook
	"toolListChangedWatch": {"toolListChangedWatch"},     // the numbers as given; onStatus stays in JavaScript
	"tools":                {"tools"},                    // each normalized by toolJSON (parameters, input_schema → inputSchema)
	"tracer":               nil,                          // the trace module makes the spans from the hooks, in JavaScript
	"traceContent":         nil,
	"tracePropagation":     nil,
	"transport":            {"transport"}, // a function or {stream}: transport: true, the transport hook
}

// hookFlags are the wire.SessionOptions fields that only say a hook exists.
var hookFlags = []string{"auth", "execute", "mcpClient", "systemFunction", "transport"}

func TestSessionOptionNames(t *testing.T) {
	src, dts := readText(t, loaderPath), readText(t, dtsPath)
	jsonOpts := loaderSet(t, src, "JSON_OPTIONS")
	jsOpts := loaderSet(t, src, "JS_OPTIONS")
	wireOpts := jsonFields(wire.SessionOptions{})

	for _, n := range jsonOpts {
		assert.NotContains(t, jsOpts, n, "%s is in both JSON_OPTIONS and JS_OPTIONS of the loader", n)
	}
	assert.ElementsMatch(t, dtsMembers(t, dts, "SessionOptions"), union(jsonOpts, jsOpts),
		"the loader accepts exactly the options of SessionOptions in web/agentwasm.d.ts (JSON_OPTIONS ∪ JS_OPTIONS)")
	handled := loaderDestructured(t, src, "function sessionOptionsJSON(", "options")
	assert.Subset(t, handled, jsOpts, "sessionOptionsJSON handles every option of JS_OPTIONS")
	for _, n := range handled {
		if !slices.Contains(jsOpts, n) {
			// It may check a JSON option (mcpUrl's type, say) before sending it as given.
			assert.Contains(t, jsonOpts, n, "sessionOptionsJSON takes %s, which is in neither JS_OPTIONS nor JSON_OPTIONS", n)
		}
	}

	// JSON options travel as given, under the same name.
	for _, n := range jsonOpts {
		assert.Contains(t, wireOpts, n, "the loader sends %s as given, but wire.SessionOptions has no such field", n)
	}
	var keys []string
	sent := slices.Clone(jsonOpts)
	for n, fields := range jsSessionOptions {
		keys = append(keys, n)
		sent = append(sent, fields...)
	}
	assert.ElementsMatch(t, jsOpts, keys, "jsSessionOptions (this test) says how each option of JS_OPTIONS reaches the module")
	assert.ElementsMatch(t, wireOpts, union(sent),
		"wire.SessionOptions has exactly the fields the loader sends: JSON_OPTIONS as given, and jsSessionOptions")
	for _, n := range hookFlags {
		assert.Equal(t, reflect.Bool, jsonKind(t, wire.SessionOptions{}, n), "wire.SessionOptions.%s says a hook exists", n)
	}
}

func TestNestedOptionNames(t *testing.T) {
	src, dts := readText(t, loaderPath), readText(t, dtsPath)
	cases := []struct {
		option string
		dts    string   // the interface of web/agentwasm.d.ts
		wire   any      // the wire type the module decodes
		loader []string // the names the loader accepts, when it lists them
		jsOnly []string // declared names that do not travel, each for the reason in the case's comment
	}{
		// kit: the flags say which methods exist (kit.execute, kit.systemPrompt hooks).
		{option: "kit", dts: "Kit", wire: wire.Kit{}},
		{option: "draft", dts: "DraftBinding", wire: wire.Draft{}},
		{option: "toolChoice", dts: "ToolChoice", wire: wire.ToolChoice{}},
		// tools: parameters and input_schema are aliases the loader sends as inputSchema.
		{option: "tools", dts: "ToolDefinition", wire: wire.ToolSpec{}, jsOnly: []string{"parameters", "input_schema"}},
		// studioTools: the lists travel as given, approve as a boolean.
		{option: "studioTools", dts: "StudioToolPolicy", wire: wire.ToolPolicy{},
			loader: append(loaderList(t, src, "= studioTools;"), loaderDestructured(t, src, "if (studioTools !== undefined)", "studioTools")...)},
		// model as an endpoint: name travels as the session's model, and the
		// key (apiKey or getApiKey) as apiKey: true, the apiKey hook.
		{option: "model", dts: "DirectModel", wire: wire.OpenAIEndpoint{},
			loader: loaderList(t, src, "function directModel("), jsOnly: []string{"name", "getApiKey"}},
		// toolListChangedWatch: onStatus is a JavaScript observer; the module
		// reports the watch as toolWatch events.
		{option: "toolListChangedWatch", dts: "ToolListChangedWatchOptions", wire: wire.WatchOptions{},
			loader: append(loaderList(t, src, "= toolListChangedWatch;"), loaderDestructured(t, src, "if (toolListChangedWatch !== undefined)", "toolListChangedWatch")...),
			jsOnly: []string{"onStatus"}},
	}
	for _, tc := range cases {
		t.Run(tc.option, func(t *testing.T) {
			declared := dtsMembers(t, dts, tc.dts)
			if tc.loader != nil {
				assert.ElementsMatch(t, declared, tc.loader, "the loader accepts exactly the names of %s", tc.dts)
			}
			var travels []string
			for _, n := range declared {
				if !slices.Contains(tc.jsOnly, n) {
					travels = append(travels, n)
				}
			}
			for _, n := range tc.jsOnly {
				assert.Contains(t, declared, n, "a JavaScript-only name that %s does not declare", tc.dts)
			}
			assert.ElementsMatch(t, jsonFields(tc.wire), travels,
				"%s of web/agentwasm.d.ts (but the JavaScript-only names) and wire.%T have the same names", tc.dts, tc.wire)
		})
	}
}

// jsPortOptions says how each port option the loader takes out before the
// rest travels as given (PORT_OPTIONS) reaches the module.
var jsPortOptions = map[string][]string{
	"handlers": {"handlers"}, // action id → function: the action ids travel, each fire calls the handler hook
	"onWarn":   nil,          // observers of the port's event hook
	"onChange": nil,
	"restore":  {"restore"}, // a snapshot object or its JSON text: the object travels
	"tracer":   nil,         // port.mcp's server spans are made in JavaScript
}

func TestPortOptionNames(t *testing.T) {
	src, dts := readText(t, loaderPath), readText(t, dtsPath)
	jsonOpts := loaderSet(t, src, "PORT_OPTIONS")
	jsOpts := loaderDestructured(t, src, "createPort(graph, options = {}) {", "options")

	for _, n := range jsonOpts {
		assert.NotContains(t, jsOpts, n, "%s is in PORT_OPTIONS and also taken out by createPort", n)
	}
	assert.ElementsMatch(t, dtsMembers(t, dts, "PortOptions"), union(jsonOpts, jsOpts),
		"createPort accepts exactly the options of PortOptions in web/agentwasm.d.ts")
	var keys []string
	sent := slices.Clone(jsonOpts)
	for n, fields := range jsPortOptions {
		keys = append(keys, n)
		sent = append(sent, fields...)
	}
	assert.ElementsMatch(t, jsOpts, keys, "jsPortOptions (this test) says how each option createPort takes out reaches the module")
	assert.ElementsMatch(t, jsonFields(wire.PortOptions{}), union(sent),
		"wire.PortOptions has exactly the fields createPort sends: PORT_OPTIONS as given, and jsPortOptions")
}

// goErrorCodes returns the Code… constants of wasm/internal/command (name → value)
// and checks the command layer and both entry points emit only those: every
// failure() and every wire.ErrorBody literal names one, and each is used.
func goErrorCodes(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	for _, dir := range []string{".", "../../js", "../../wasip1"} {
		paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		for _, p := range paths {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, p, nil, 0)
			require.NoError(t, err)
			files = append(files, f)
		}
	}
	codes := map[string]string{}
	uses := map[string]int{}
	isCode := func(e ast.Expr) (string, bool) {
		switch x := e.(type) {
		case *ast.Ident:
			return x.Name, strings.HasPrefix(x.Name, "Code")
		case *ast.SelectorExpr:
			return x.Sel.Name, strings.HasPrefix(x.Sel.Name, "Code")
		}
		return "", false
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.FuncDecl:
				return x.Name.Name != "failure" // failure(code, msg) passes its argument on
			case *ast.ValueSpec:
				for i, name := range x.Names {
					if strings.HasPrefix(name.Name, "Code") && i < len(x.Values) {
						lit, ok := x.Values[i].(*ast.BasicLit)
						require.True(t, ok, "%s is not a string literal", name.Name)
						v, err := strconv.Unquote(lit.Value)
						require.NoError(t, err)
						codes[name.Name] = v
						uses[name.Name]-- // the declaration is no use
					}
				}
			case *ast.CallExpr:
				if fn, ok := x.Fun.(*ast.Ident); ok && fn.Name == "failure" {
					_, ok := isCode(x.Args[0])
					assert.True(t, ok, "%s: failure() with a code that is no Code… constant", fset.Position(x.Pos()))
				}
			case *ast.KeyValueExpr:
				if k, ok := x.Key.(*ast.Ident); ok && k.Name == "Code" {
					_, ok := isCode(x.Value)
					assert.True(t, ok, "%s: an error body with a code that is no Code… constant", fset.Position(x.Pos()))
				}
			case *ast.Ident:
				if strings.HasPrefix(x.Name, "Code") && x.Name != "Code" { // not ErrorBody's field
					uses[x.Name]++
				}
			}
			return true
		})
	}
	require.NotEmpty(t, codes)
	for name := range codes {
		assert.Positive(t, uses[name], "%s is declared but never emitted; drop it (and from the lists) or emit it", name)
	}
	for name := range uses {
		assert.Contains(t, codes, name, "%s is used but not declared in wasm/internal/command", name)
	}
	return codes
}

// loaderErrorCodes returns the codes web/agentwasm.mjs gives its errors:
// agentError('…'), jsonText(…, '…', …) and the `code: '…'` fallback.
func loaderErrorCodes(t *testing.T) []string {
	t.Helper()
	src := readText(t, loaderPath)
	var out []string
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`agentError\(\s*'([a-z_]+)'`),
		regexp.MustCompile(`jsonText\([^()]*?,\s*'([a-z_]+)'`),
		regexp.MustCompile(`\bcode: '([a-z_]+)'`),
	} {
		for _, m := range re.FindAllStringSubmatch(src, -1) {
			out = append(out, m[1])
		}
	}
	require.NotEmpty(t, out)
	return union(out)
}

// codeNames returns the backticked error codes (lower case and _) of text.
func codeNames(text string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(text, -1) {
		if regexp.MustCompile(`^[a-z_]+$`).MatchString(m[1]) {
			out = append(out, m[1])
		}
	}
	return union(out)
}

func TestErrorCodes(t *testing.T) {
	var goCodes []string
	for _, v := range goErrorCodes(t) {
		goCodes = append(goCodes, v)
	}
	goCodes = union(goCodes)

	dts := readText(t, dtsPath)
	i := strings.Index(dts, "export interface AgentwasmError")
	require.GreaterOrEqual(t, i, 0, "web/agentwasm.d.ts has no AgentwasmError")
	doc := dts[i:]
	doc = doc[:strings.Index(doc, "code: string;")]
	assert.Equal(t, union(goCodes, loaderErrorCodes(t)), codeNames(doc),
		"AgentwasmError.code in web/agentwasm.d.ts lists exactly the codes the module (wasm/internal/command's Code… constants) and the loader emit")

	readme := readText(t, readmePath)
	i = strings.Index(readme, "\nError codes: ")
	require.GreaterOrEqual(t, i, 0, "wasm/README.md has no `Error codes:` paragraph")
	para := readme[i+1:]
	para = para[:strings.Index(para, "\n\n")]
	assert.Equal(t, goCodes, codeNames(para), "wasm/README.md's error codes are exactly wasm/internal/command's Code… constants")
}
