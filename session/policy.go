// The tool policy (Options.StudioTools): which tools discovered on the MCP
// server this session advertises and routes. Routing needs a positive
// signal — a classification in an approved family, or an exact allowlisted
// name — never a name prefix.

package session

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentwasm/agentwasm/internal/jsonr"
	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/session/mcpclient"
)

// Rejection reasons of a ToolRejection. The first four are the policy's;
// the others refuse a descriptor before the policy sees it.
const (
	RejectUnclassified = "unclassified" // no classification or no family, and not allowlisted
	RejectFamily       = "family"       // family not in the policy's families
	RejectView         = "view"         // views are set and the tool's view is missing or not listed
	RejectPolicy       = "policy"       // the policy's Approve vetoed it
	RejectName         = "name"         // the name breaks MCP's rule (see MaxToolNameLength)
	RejectSchema       = "schema"       // the inputSchema is not a JSON object, or nests deeper than MaxToolSchemaDepth
	RejectDescriptor   = "descriptor"   // the descriptor is unreadable, or its annotations are not a JSON object or nest too deeply
	RejectSize         = "size"         // the catalog already holds MaxCatalogTools tools
)

// Bounds on what discovery takes from an MCP server's tools/list.
const (
	// MaxToolNameLength bounds a tool name. MCP's rule: 1 to 128
	// characters, each of A-Z, a-z, 0-9, '_', '.' and '-'.
	MaxToolNameLength = 128
	// MaxToolDescriptionBytes bounds a description; a longer one is cut
	// there, at a character boundary, and a diagnostic says so.
	MaxToolDescriptionBytes = 4096
	// MaxToolSchemaDepth bounds how deeply arrays and objects nest in a
	// tool's inputSchema (and in its annotations): far more than any
	// schema a model can use, far less than what strains a JSON reader.
	MaxToolSchemaDepth = 64
	// MaxCatalogTools bounds the tools one pass considers: the well-formed
	// tools past it are refused with RejectSize.
	MaxCatalogTools = 1000
	// maxListedRejections bounds ToolDiscoveryReport.Rejected; a
	// diagnostic counts the refused tools past it.
	maxListedRejections = 1000
	// maxRejectedNameBytes bounds a name as a rejection quotes it.
	maxRejectedNameBytes = 256
)

// emptyInputSchema stands for an absent inputSchema.
var emptyInputSchema = RawJSON(`{"type":"object"}`)

// ToolRejection is one discovered tool that is not routed: refused by the
// policy, or before it, for its descriptor (RejectName, RejectSchema,
// RejectDescriptor) or the catalog's size (RejectSize).
//
//easyjson:json
//agentwasm:encode-only
type ToolRejection struct {
	Name           string              `json:"name"`   // as listed (what could be read of it), cut to 256 bytes
	Reason         string              `json:"reason"` // a Reject* constant
	Classification *ToolClassification `json:"classification,omitempty"`
	Detail         string              `json:"detail"` // says why, in words
}

// ToolClassificationSummary counts the classifications of the discovered tools.
//
//easyjson:json
//agentwasm:encode-only
type ToolClassificationSummary struct {
	Families  map[string]int `json:"families" jsonw:"nonnil"`
	Views     map[string]int `json:"views" jsonw:"nonnil"`
	Revisions map[string]int `json:"revisions" jsonw:"nonnil"`
}

// ToolDiscoveryReport is what one discovery pass found and decided.
//
//easyjson:json
//agentwasm:encode-only
type ToolDiscoveryReport struct {
	Discovered      int                       `json:"discovered"`            // descriptors the server listed (refused and repeated ones included)
	Pages           int                       `json:"pages"`                 // tools/list pages read
	Routed          []string                  `json:"routed" jsonw:"nonnil"` // names routed and advertised, in server order
	Classification  ToolClassificationSummary `json:"classification"`
	Rejected        []ToolRejection           `json:"rejected" jsonw:"nonnil"`        // at most 1,000; a diagnostic counts the rest
	MissingRequired []string                  `json:"missingRequired" jsonw:"nonnil"` // required names not routed
	Diagnostics     []string                  `json:"diagnostics" jsonw:"nonnil"`     // what a developer should look at
	ErrorMessage    string                    `json:"errorMessage,omitempty"`         // why the pass failed; empty on success
	// Degraded is set on a failed pass (not on an absent endpoint): the
	// session goes on with its runtime tools and the last catalog it knew,
	// later turns do not wait for discovery, and a pass is retried in the
	// background with backoff until one succeeds. ErrorMessage names the
	// request that failed.
	Degraded bool `json:"degraded,omitempty"`
}

// catalog is the routed part of a successful pass.
type catalog struct {
	tools   []ToolDefinition  // routed, in server order
	routed  map[string]bool   // names in tools
	refused map[string]string // discovered but not routed: name → why
}

// classify reads a tool's classification from _meta, else annotations.
func classify(t mcpclient.Tool) *ToolClassification {
	for _, raw := range []RawJSON{t.Meta, t.Annotations} {
		if c := readClassification(raw); c != nil {
			return c
		}
	}
	return nil
}

func readClassification(raw RawJSON) *ToolClassification {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	var m wire.StudioMeta
	if wire.Unmarshal(b, &m) != nil || m.Studio == nil {
		return nil
	}
	rev := strings.TrimSpace(string(m.Studio.Revision))
	if s, err := wire.DecodeString([]byte(rev)); err == nil {
		rev = s
	}
	return &ToolClassification{Family: m.Studio.Family, View: m.Studio.View, Revision: rev}
}

// applyPolicy decides which of the listed tools to route. Before the
// policy sees a tool, its descriptor must be readable, its name follow
// MCP's rule, its inputSchema and annotations be JSON objects nested at
// most MaxToolSchemaDepth deep, and the catalog hold fewer than
// MaxCatalogTools tools; an absent inputSchema becomes {"type":"object"} and
// a description longer than MaxToolDescriptionBytes is cut.
func applyPolicy(list []mcpclient.Tool, pages int, pol *ToolPolicy) (*catalog, ToolDiscoveryReport) {
	families, views, required := DefaultToolFamilies, []string(nil), DefaultRequiredTools
	var allow map[string]bool
	var approve func(ToolCatalogEntry) bool
	if pol != nil {
		if pol.Families != nil {
			families = pol.Families
		}
		views = pol.Views
		if pol.Required != nil {
			required = pol.Required
		}
		allow = setOf(pol.Allowlist)
		approve = pol.Approve
	}
	famSet, viewSet := setOf(families), setOf(views)
	c := &catalog{routed: map[string]bool{}, refused: map[string]string{}}
	rep := ToolDiscoveryReport{Discovered: len(list), Pages: pages, Classification: ToolClassificationSummary{
		Families: map[string]int{}, Views: map[string]int{}, Revisions: map[string]int{}}}
	unlisted := 0 // refused tools past maxListedRejections
	reject := func(name, reason, detail string, cl *ToolClassification) {
		if len(rep.Rejected) < maxListedRejections {
			rep.Rejected = append(rep.Rejected, ToolRejection{Name: cut(name, maxRejectedNameBytes), Reason: reason, Classification: cl, Detail: detail})
		} else {
			unlisted++
		}
	}
	seen := map[string]bool{}
	considered := 0
	for _, t := range list {
		switch {
		case t.Unreadable != "":
			reject(t.Name, RejectDescriptor, t.Unreadable, nil)
			continue
		case nameProblem(t.Name) != "":
			reject(t.Name, RejectName, nameProblem(t.Name), nil)
			continue
		case seen[t.Name]:
			continue // a repeated name keeps the first
		}
		seen[t.Name] = true
		var reason, detail string
		t, reason, detail = vetTool(t, &rep)
		switch {
		case reason == "" && considered == MaxCatalogTools:
			reason, detail = RejectSize, "the catalog holds at most "+strconv.Itoa(MaxCatalogTools)+" tools, and this one came after them"
		case reason == "":
			considered++
		}
		if reason != "" {
			reject(t.Name, reason, detail, nil)
			c.refused[t.Name] = detail
			continue
		}
		cl := classify(t)
		if cl != nil {
			count(rep.Classification.Families, cl.Family)
			count(rep.Classification.Views, cl.View)
			count(rep.Classification.Revisions, cl.Revision)
		}
		entry := ToolCatalogEntry{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Annotations: t.Annotations, Classification: cl}
		switch {
		case cl == nil || cl.Family == "":
			if !allow[t.Name] {
				reason, detail = RejectUnclassified, "no honua.studio classification with a family, and not on the allowlist"
			}
		case !famSet[cl.Family]:
			reason, detail = RejectFamily, "family "+cl.Family+" is not one of "+strings.Join(families, ", ")
		case views != nil && (cl.View == "" || !viewSet[cl.View]):
			reason, detail = RejectView, "view "+strconv.Quote(cl.View)+" is not one of "+strings.Join(views, ", ")
		}
		if reason == "" && approve != nil && !safeApprove(approve, entry) {
			reason, detail = RejectPolicy, "the policy's approve function vetoed it"
		}
		if reason != "" {
			reject(t.Name, reason, detail, cl)
			c.refused[t.Name] = detail
			continue
		}
		c.routed[t.Name] = true
		c.tools = append(c.tools, ToolDefinition{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Annotations: t.Annotations})
		rep.Routed = append(rep.Routed, t.Name)
	}
	if unlisted > 0 {
		rep.Diagnostics = append(rep.Diagnostics, strconv.Itoa(unlisted)+" more refused tools are not listed: the report lists at most "+strconv.Itoa(maxListedRejections))
	}
	for _, name := range required {
		switch why, refused := c.refused[name]; {
		case c.routed[name]:
		case refused:
			rep.MissingRequired = append(rep.MissingRequired, name)
			rep.Diagnostics = append(rep.Diagnostics, name+": discovered but not routed: "+why)
		default:
			rep.MissingRequired = append(rep.MissingRequired, name)
			rep.Diagnostics = append(rep.Diagnostics, name+": not advertised by the server's tools/list catalog")
		}
	}
	return c, rep
}

// safeApprove calls the policy's veto, taking a panic as a veto.
func safeApprove(approve func(ToolCatalogEntry) bool, e ToolCatalogEntry) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return approve(e)
}

func setOf(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

func count(m map[string]int, key string) {
	if key != "" {
		m[key]++
	}
}

// refusedWhy says why a discovered tool is not routed; ok is false for a
// name the server did not list (or no catalog).
func (c *catalog) refusedWhy(name string) (why string, ok bool) {
	if c == nil {
		return "", false
	}
	why, ok = c.refused[name]
	return why, ok
}

// nameProblem says how name breaks MCP's rule for tool names (1 to
// MaxToolNameLength characters of A-Z, a-z, 0-9, '_', '.' and '-'), or "".
func nameProblem(name string) string {
	const rule = "; MCP tool names are 1 to 128 characters, each of A-Z, a-z, 0-9, '_', '.' and '-'"
	switch {
	case name == "":
		return "the tool has no name" + rule
	case len(name) > MaxToolNameLength:
		return "the name is " + strconv.Itoa(len(name)) + " bytes long" + rule
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			r, _ := utf8.DecodeRuneInString(name[i:])
			return "the name " + strconv.Quote(cut(name, 64)) + " has " + strconv.QuoteRune(r) + " at byte " + strconv.Itoa(i) + rule
		}
	}
	return ""
}

// vetTool checks what a well-named tool brings besides its name, and
// returns it as the catalog takes it (an absent inputSchema is
// {"type":"object"}, a long description is cut, with a diagnostic in rep),
// or a Reject* reason and why.
func vetTool(t mcpclient.Tool, rep *ToolDiscoveryReport) (mcpclient.Tool, string, string) {
	absent, why := objectProblem(t.InputSchema, "the inputSchema", " is", " nests")
	if why != "" {
		return t, RejectSchema, why
	}
	if absent {
		t.InputSchema = emptyInputSchema
	}
	if absent, why = objectProblem(t.Annotations, "the annotations", " are", " nest"); why != "" {
		return t, RejectDescriptor, why
	}
	if absent {
		t.Annotations = nil
	}
	if n := len(t.Description); n > MaxToolDescriptionBytes {
		t.Description = cut(t.Description, MaxToolDescriptionBytes)
		rep.Diagnostics = append(rep.Diagnostics, t.Name+": the description is "+strconv.Itoa(n)+" bytes; it was cut to "+strconv.Itoa(len(t.Description)))
	}
	return t, "", ""
}

// objectProblem says why raw, a member of a descriptor that what names
// (with the verbs that go with it), is not a JSON object nested at most
// MaxToolSchemaDepth deep; absent is true for an absent or null member.
func objectProblem(raw RawJSON, what, is, nests string) (absent bool, problem string) {
	b := jsonr.TrimSpace(raw)
	switch {
	case len(b) == 0 || string(b) == "null":
		return true, ""
	case b[0] != '{':
		return false, what + is + " " + jsonr.KindName(b) + ", not a JSON object"
	case jsonWithin(b, MaxToolSchemaDepth) == nil:
		return false, ""
	}
	if err := jsonWithin(b, len(b)); err != nil {
		return false, what + is + " not valid JSON: " + err.Error()
	}
	return false, what + nests + " too deeply: arrays and objects more than " + strconv.Itoa(MaxToolSchemaDepth) + " levels deep"
}

// jsonWithin checks that b is one JSON value nested at most maxDepth deep.
func jsonWithin(b []byte, maxDepth int) error {
	l := jsonr.Lexer{Data: b, MaxDepth: maxDepth}
	l.SkipRecursive()
	l.Consumed()
	return l.Error()
}

// cut returns s cut to at most n bytes, at a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
