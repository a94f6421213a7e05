// The tool policy (Options.StudioTools): which tools discovered on the MCP
// server this session advertises and routes. Routing needs a positive
// signal — a classification in an approved family, or an exact allowlisted
// name — never a name prefix.

package session

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/wire"
)

// Rejection reasons of a ToolRejection.
const (
	RejectUnclassified = "unclassified" // no classification or no family, and not allowlisted
	RejectFamily       = "family"       // family not in the policy's families
	RejectView         = "view"         // views are set and the tool's view is missing or not listed
	RejectPolicy       = "policy"       // the policy's Approve vetoed it
)

// ToolRejection is one discovered tool the policy did not route.
type ToolRejection struct {
	Name           string
	Reason         string // a Reject* constant
	Classification *ToolClassification
	Detail         string // says why, in words
}

// ToolClassificationSummary counts the classifications of the discovered tools.
type ToolClassificationSummary struct {
	Families  map[string]int
	Views     map[string]int
	Revisions map[string]int
}

// ToolDiscoveryReport is what one discovery pass found and decided.
type ToolDiscoveryReport struct {
	Discovered      int      // descriptors the server listed (nameless and repeated ones included)
	Pages           int      // tools/list pages read
	Routed          []string // names routed and advertised, in server order
	Classification  ToolClassificationSummary
	Rejected        []ToolRejection
	MissingRequired []string // required names not routed
	Diagnostics     []string // what a developer should look at
	ErrorMessage    string   // why the pass failed; empty on success
}

// catalog is the routed part of a successful pass.
type catalog struct {
	tools   []ToolDefinition  // routed, in server order
	routed  map[string]bool   // names in tools
	refused map[string]string // discovered but not routed: name → why
}

// classify reads a tool's classification from _meta, else annotations.
func classify(t MCPTool) *ToolClassification {
	for _, raw := range []json.RawMessage{t.Meta, t.Annotations} {
		if c := readClassification(raw); c != nil {
			return c
		}
	}
	return nil
}

func readClassification(raw json.RawMessage) *ToolClassification {
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

// applyPolicy decides which of the listed tools to route.
func applyPolicy(list []MCPTool, pages int, pol *ToolPolicy) (*catalog, ToolDiscoveryReport) {
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
	seen := map[string]bool{}
	for _, t := range list {
		if t.Name == "" || seen[t.Name] {
			continue // nameless descriptors are skipped; a repeated name keeps the first
		}
		seen[t.Name] = true
		cl := classify(t)
		if cl != nil {
			count(rep.Classification.Families, cl.Family)
			count(rep.Classification.Views, cl.View)
			count(rep.Classification.Revisions, cl.Revision)
		}
		entry := ToolCatalogEntry{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Annotations: t.Annotations, Classification: cl}
		reason, detail := "", ""
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
			rep.Rejected = append(rep.Rejected, ToolRejection{Name: t.Name, Reason: reason, Classification: cl, Detail: detail})
			c.refused[t.Name] = detail
			continue
		}
		c.routed[t.Name] = true
		c.tools = append(c.tools, ToolDefinition{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Annotations: t.Annotations})
		rep.Routed = append(rep.Routed, t.Name)
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
