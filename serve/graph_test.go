// Tests for graph parsing and validation.

package serve

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const shopGraph = `{
 "id":"shop", "version":"ignored top-level field",
 "pages":[
  {"id":"catalog"},
  {"id":"cart","areas":[{"id":"summary","areas":[{"id":"totals"}]},{"id":"coupons"}]},
  {"id":"checkout"}],
 "actions":[
  {"id":"catalog.add","does":"Add an item to the cart","on":"catalog","writes":["cart.items"],
   "input":{"type":"object","required":["sku"],"properties":{"sku":{"type":"string"}}}},
  {"id":"cart.checkout","does":"Go to checkout","on":"cart","goTo":"checkout","reads":["cart.items"],
   "input":"none","when":{"key":"cart.items","op":"nonEmpty"}},
  {"id":"cart.coupons.apply","does":"Apply a coupon","on":"cart","input":null},
  {"id":"cart.summary.totals.refresh","on":"cart"},
  {"id":"checkout.pay","does":"Pay","on":"checkout","confirm":true,"writes":["order.id"],
   "enabledWhen":{"all":[{"key":"payment.ready","op":"truthy"}]}}],
 "journeys":[
  {"id":"buy","does":"Buy what is in the cart","steps":["cart.checkout","checkout.pay"],
   "precondition":{"key":"cart.items","op":"nonEmpty"}},
  {"id":"browse","steps":["catalog.add"]}]
}`

func TestParseGraph(t *testing.T) {
	g, err := ParseGraph([]byte(shopGraph))
	require.NoError(t, err)
	assert.Equal(t, "shop", g.ID)

	require.Len(t, g.Pages, 3)
	assert.Equal(t, []string{"catalog", "cart", "checkout"}, []string{g.Pages[0].ID, g.Pages[1].ID, g.Pages[2].ID})
	assert.Equal(t, []string{"cart.summary", "cart.summary.totals", "cart.coupons"}, g.Pages[1].Areas)
	assert.Nil(t, g.Pages[0].Areas)

	var ids []string
	for _, a := range g.Actions {
		ids = append(ids, a.ID)
	}
	assert.Equal(t, []string{"catalog.add", "cart.checkout", "cart.coupons.apply", "cart.summary.totals.refresh", "checkout.pay"}, ids)

	add := g.Action("catalog.add")
	require.NotNil(t, add)
	assert.Equal(t, "Add an item to the cart", add.Does)
	assert.Equal(t, []string{"cart.items"}, add.Writes)
	require.NotNil(t, add.Input)
	assert.Equal(t, []SchemaError{{"", `missing required property "sku"`}}, add.Input.Validate(map[string]any{}))
	assert.Nil(t, add.When)

	co := g.Action("cart.checkout")
	require.NotNil(t, co)
	assert.Nil(t, co.Input, `"none" means no input`)
	assert.Equal(t, "checkout", co.GoTo)
	assert.Equal(t, []string{"cart.items"}, co.Reads)
	ok, _, failed := co.When.Eval(State{})
	assert.False(t, ok)
	assert.Equal(t, []Condition{{Key: "cart.items", Op: "nonEmpty"}}, failed)
	assert.Nil(t, g.Action("cart.coupons.apply").Input, "null means no input")

	pay := g.Action("checkout.pay")
	assert.True(t, pay.Confirm)
	assert.False(t, co.Confirm)
	ok, _, _ = pay.EnabledWhen.Eval(State{"payment": map[string]any{"ready": true}})
	assert.True(t, ok)

	require.Len(t, g.Journeys, 2)
	buy := g.Journey("buy")
	require.NotNil(t, buy)
	assert.Equal(t, []string{"cart.checkout", "checkout.pay"}, buy.Steps)
	assert.Equal(t, "Buy what is in the cart", buy.Does)
	assert.NotNil(t, buy.Precondition)
	assert.Nil(t, g.Journey("browse").Precondition)

	assert.Same(t, &g.Pages[1], g.Page("cart"))
	assert.Nil(t, g.Page("nope"))
	assert.Nil(t, g.Action("nope"))
	assert.Nil(t, g.Journey("nope"))
}

func TestGraphLookupWithoutIndex(t *testing.T) {
	g := &Graph{ID: "x", Pages: []Page{{ID: "p"}}, Actions: []Action{{ID: "p.a", On: "p"}}, Journeys: []Journey{{ID: "j", Steps: []string{"p.a"}}}}
	assert.Equal(t, "p.a", g.Action("p.a").ID)
	assert.Equal(t, "p", g.Page("p").ID)
	assert.Equal(t, "j", g.Journey("j").ID)
	var nilGraph *Graph
	assert.Nil(t, nilGraph.Action("p.a"))
	assert.Nil(t, nilGraph.Page("p"))
	assert.Nil(t, nilGraph.Journey("j"))
}

func TestParseGraphMinimal(t *testing.T) {
	g, err := ParseGraph([]byte(`{"id":"g"}`))
	require.NoError(t, err)
	assert.Equal(t, "g", g.ID)
	assert.Empty(t, g.Pages)
	assert.Empty(t, g.Actions)
	assert.Empty(t, g.Journeys)
}

func TestParseGraphErrors(t *testing.T) {
	page := `"pages":[{"id":"cart","areas":[{"id":"summary"}]},{"id":"checkout"}]`
	cases := []struct {
		name, doc, wantErr string
	}{
		{"not json", `{"id":`, "serve: graph: json: at byte 6"},
		{"not object", `[]`, "serve: graph: must be a JSON object, got an array"},
		{"missing graph id", `{"pages":[]}`, `serve: graph: missing "id"`},
		{"bad graph id", `{"id":"my shop"}`, `serve: graph: id "my shop" must be non-empty`},
		{"empty graph id", `{"id":""}`, `id "" must be non-empty`},
		{"graph id wrong type", `{"id":7}`, `serve: graph: "id" must be a string, got a number`},
		{"pages wrong type", `{"id":"g","pages":{}}`, `serve: graph: "pages" must be an array of objects, got an object`},
		{"page not object", `{"id":"g","pages":["cart"]}`, `serve: graph: pages[0] must be an object, got a string`},
		{"page missing id", `{"id":"g","pages":[{"id":"a"},{}]}`, `serve: pages[1]: missing "id"`},
		{"bad page id", `{"id":"g","pages":[{"id":"a/b"}]}`, `serve: pages[0]: id "a/b"`},
		{"duplicate page", `{"id":"g","pages":[{"id":"a"},{"id":"a"}]}`, `serve: page "a" is declared twice`},
		{"areas wrong type", `{"id":"g","pages":[{"id":"a","areas":"x"}]}`, `serve: page "a": "areas" must be an array of objects, got a string`},
		{"bad area id", `{"id":"g","pages":[{"id":"a","areas":[{"id":"b c"}]}]}`, `serve: page "a": areas[0]: id "b c"`},
		{"duplicate area", `{"id":"g","pages":[{"id":"a","areas":[{"id":"b"},{"id":"b"}]}]}`, `serve: page "a": area "a.b" is declared twice`},
		{"nested area error", `{"id":"g","pages":[{"id":"a","areas":[{"id":"b","areas":[{}]}]}]}`, `serve: area "a.b": areas[0]: missing "id"`},
		{"action missing id", `{"id":"g",` + page + `,"actions":[{"on":"cart"}]}`, `serve: actions[0]: missing "id"`},
		{"action missing on", `{"id":"g",` + page + `,"actions":[{"id":"cart.x"}]}`, `serve: action "cart.x": missing "on"`},
		{"unknown page", `{"id":"g",` + page + `,"actions":[{"id":"nope.pay","on":"nope"}]}`, `serve: action "nope.pay": page "nope" is not declared`},
		{"unknown goTo", `{"id":"g",` + page + `,"actions":[{"id":"cart.go","on":"cart","goTo":"moon"}]}`, `serve: action "cart.go": goTo page "moon" is not declared`},
		{"wrong prefix", `{"id":"g",` + page + `,"actions":[{"id":"checkout.pay","on":"cart"}]}`, `serve: action "checkout.pay": id must be "cart." followed by a name`},
		{"page id only", `{"id":"g",` + page + `,"actions":[{"id":"cart.","on":"cart"}]}`, `serve: action "cart.": id must be "cart." followed by a name`},
		{"prefix not at dot", `{"id":"g",` + page + `,"actions":[{"id":"cartx.pay","on":"cart"}]}`, `serve: action "cartx.pay": id must be "cart."`},
		{"unknown area", `{"id":"g",` + page + `,"actions":[{"id":"cart.side.pay","on":"cart"}]}`, `serve: action "cart.side.pay": id must be <page>.<name> or <page>.<area>.<name>, and "side" is not an area of page "cart"`},
		{"area without name", `{"id":"g",` + page + `,"actions":[{"id":"cart.summary.","on":"cart"}]}`, `serve: action "cart.summary."`},
		{"duplicate action", `{"id":"g",` + page + `,"actions":[{"id":"cart.a","on":"cart"},{"id":"cart.a","on":"cart"}]}`, `serve: action "cart.a" is declared twice`},
		{"does wrong type", `{"id":"g",` + page + `,"actions":[{"id":"cart.a","on":"cart","does":1}]}`, `serve: action "cart.a": "does" must be a string, got a number`},
		{"writes wrong type", `{"id":"g",` + page + `,"actions":[{"id":"cart.a","on":"cart","writes":"x"}]}`, `serve: action "cart.a": "writes" must be an array of strings, got a string`},
		{"reads bad element", `{"id":"g",` + page + `,"actions":[{"id":"cart.a","on":"cart","reads":["x",""]}]}`, `serve: action "cart.a": reads[1] must be a non-empty string`},
		{"confirm wrong type", `{"id":"g",` + page + `,"actions":[{"id":"cart.a","on":"cart","confirm":"yes"}]}`, `serve: action "cart.a": "confirm" must be true or false, got a string`},
		{"input string", `{"id":"g",` + page + `,"actions":[{"id":"cart.a","on":"cart","input":"any"}]}`, `serve: action "cart.a": "input" must be a schema object or "none", got "any"`},
		{"bad schema", `{"id":"g",` + page + `,"actions":[{"id":"cart.a","on":"cart","input":{"type":"text"}}]}`, `serve: action "cart.a": input schema: unknown type "text"`},
		{"bad when", `{"id":"g",` + page + `,"actions":[{"id":"cart.a","on":"cart","when":{"key":"x","op":"near"}}]}`, `serve: action "cart.a": when: condition on "x": unknown op "near"`},
		{"bad enabledWhen", `{"id":"g",` + page + `,"actions":[{"id":"cart.a","on":"cart","enabledWhen":[]}]}`, `serve: action "cart.a": enabledWhen: a condition must be an object, got an array`},
		{"journey unknown step", `{"id":"g",` + page + `,"actions":[{"id":"cart.a","on":"cart"}],"journeys":[{"id":"j","steps":["cart.a","cart.b"]}]}`, `serve: journey "j": step "cart.b" is not a declared action`},
		{"journey no steps", `{"id":"g",` + page + `,"journeys":[{"id":"j","steps":[]}]}`, `serve: journey "j": has no steps`},
		{"journey steps absent", `{"id":"g",` + page + `,"journeys":[{"id":"j"}]}`, `serve: journey "j": has no steps`},
		{"journey steps wrong type", `{"id":"g",` + page + `,"journeys":[{"id":"j","steps":"x"}]}`, `serve: journey "j": "steps" must be an array of strings, got a string`},
		{"journey repeated step", `{"id":"g",` + page + `,"actions":[{"id":"cart.a","on":"cart"}],"journeys":[{"id":"j","steps":["cart.a","cart.a"]}]}`, `serve: journey "j": step "cart.a" appears twice`},
		{"journey bad precondition", `{"id":"g",` + page + `,"actions":[{"id":"cart.a","on":"cart"}],"journeys":[{"id":"j","steps":["cart.a"],"precondition":{"key":"k","op":"in","value":1}}]}`, `serve: journey "j": precondition: condition on "k": op "in" needs an array`},
		{"duplicate journey", `{"id":"g",` + page + `,"actions":[{"id":"cart.a","on":"cart"}],"journeys":[{"id":"j","steps":["cart.a"]},{"id":"j","steps":["cart.a"]}]}`, `serve: journey "j" is declared twice`},
		{"bad journey id", `{"id":"g","journeys":[{"id":"j k","steps":["x"]}]}`, `serve: journeys[0]: id "j k"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := ParseGraph([]byte(c.doc))
			require.Error(t, err)
			assert.Nil(t, g)
			assert.Contains(t, err.Error(), c.wantErr)
			assert.True(t, strings.HasPrefix(err.Error(), "serve: "), err.Error())
		})
	}
}

func TestParseGraphSizeCap(t *testing.T) {
	big := make([]byte, MaxGraphSize+1)
	_, err := ParseGraph(big)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more than the 8388608 allowed")

	// Exactly at the cap is parsed (and here is fine JSON).
	doc := []byte(`{"id":"g","pad":"` + strings.Repeat("x", MaxGraphSize-len(`{"id":"g","pad":""}`)) + `"}`)
	require.Len(t, doc, MaxGraphSize)
	g, err := ParseGraph(doc)
	require.NoError(t, err)
	assert.Equal(t, "g", g.ID)
}

func TestValidID(t *testing.T) {
	for _, s := range []string{"a", "A-z_0.9", "cart.summary"} {
		assert.True(t, ValidID(s), s)
	}
	for _, s := range []string{"", "a b", "a/b", "é", "a:b", "a\x00"} {
		assert.False(t, ValidID(s), s)
	}
}
