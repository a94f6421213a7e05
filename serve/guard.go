// Guards: declarative conditions over state keys ({"key":"cart.items",
// "op":"nonEmpty"}, all/any/not), parsed once and evaluated anywhere in Go,
// reporting which leaf conditions held and which failed as evidence. Also
// State, the app's JSON state map, and its dotted-key lookup.

package serve

import (
	"errors"
	"strconv"
	"strings"

	"github.com/agentwasm/agentwasm/internal/errs"
	"github.com/agentwasm/agentwasm/internal/nesting"
)

// Guard is a parsed condition tree. It is immutable and safe for
// concurrent use. A nil *Guard always holds.
type Guard struct {
	root *guardNode
}

type guardKind uint8

const (
	guardLeaf guardKind = iota
	guardAll
	guardAny
	guardNot
)

type guardNode struct {
	kind  guardKind
	key   string // leaf
	op    string // leaf
	value any    // leaf; a deep copy of what was given
	kids  []*guardNode
}

// maxGuardDepth bounds how deeply all/any/not may nest: 64, or 32 in a
// TinyGo build (internal/nesting).
const maxGuardDepth = nesting.Guard

// Guard operators. eq, ne and in compare JSON values (numbers by value);
// gt, lt, gte and lte need a number on both sides (a state value that is
// not a number fails the condition); truthy follows JavaScript (null,
// false, 0, NaN and "" are falsy, everything else — empty arrays and
// objects too — is truthy); exists holds when the key is present and not
// null; nonEmpty holds for a non-empty string, array or object.
var guardOps = map[string]bool{
	"eq": true, "ne": true, "truthy": true, "exists": true, "nonEmpty": true,
	"in": true, "gt": true, "lt": true, "gte": true, "lte": true,
}

// Condition is one leaf condition of a guard as evaluated: evidence of
// why a guard failed, or a receipt of why it held.
type Condition struct {
	Key     string `json:"key"`
	Op      string `json:"op"`
	Value   any    `json:"value,omitempty"`
	Actual  any    `json:"actual,omitempty"`  // the state's value at evaluation (absent: nil)
	Negated bool   `json:"negated,omitempty"` // under an odd number of "not"s
}

// ParseGuard parses a guard from a JSON value as ParseValue returns it:
// a leaf {"key":..,"op":..,"value":..}, or {"all":[...]}, {"any":[...]},
// {"not":{...}}. Each object must be exactly one of those forms (other
// fields are ignored). eq, ne and in need a "value" (for in, an array),
// gt/lt/gte/lte a number. An empty all holds; an empty any fails.
// ParseGuard(nil) returns a nil *Guard (which always holds) and no error.
// Errors start with "serve: guard: " and name the offending op or field.
func ParseGuard(v any) (*Guard, error) {
	g, err := parseGuard(v)
	if err != nil {
		return nil, errors.New("serve: guard: " + err.Error())
	}
	return g, nil
}

// parseGuard is ParseGuard without the error prefix, for callers (the
// graph) that put their own context in front.
func parseGuard(v any) (g *Guard, err error) {
	defer func() {
		if r := recover(); r != nil {
			g, err = nil, errs.New("internal error: ", errs.Text(r))
		}
	}()
	if v == nil {
		return nil, nil
	}
	root, err := parseGuardNode(v, 0)
	if err != nil {
		return nil, err
	}
	return &Guard{root: root}, nil
}

func parseGuardNode(v any, depth int) (*guardNode, error) {
	if depth > maxGuardDepth {
		return nil, errs.New("nested deeper than ", strconv.Itoa(maxGuardDepth))
	}
	m, ok := objectOf(v)
	if !ok {
		return nil, errs.New("a condition must be an object, got ", jsonKind(v))
	}
	forms := 0
	for _, f := range [...]string{"all", "any", "not", "key"} {
		if _, ok := m[f]; ok {
			forms++
		}
	}
	if forms > 1 {
		return nil, errors.New(`a condition must have exactly one of "key", "all", "any", "not"`)
	}
	for _, f := range [...]string{"all", "any"} {
		raw, ok := m[f]
		if !ok {
			continue
		}
		list, ok := arrayOf(raw)
		if !ok {
			return nil, errs.New(strconv.Quote(f), " must be an array of conditions, got ", jsonKind(raw))
		}
		n := &guardNode{kind: guardAll}
		if f == "any" {
			n.kind = guardAny
		}
		for i, e := range list {
			k, err := parseGuardNode(e, depth+1)
			if err != nil {
				return nil, errs.Wrap(err, f, "[", strconv.Itoa(i), "]")
			}
			n.kids = append(n.kids, k)
		}
		return n, nil
	}
	if raw, ok := m["not"]; ok {
		k, err := parseGuardNode(raw, depth+1)
		if err != nil {
			return nil, errs.Wrap(err, "not")
		}
		return &guardNode{kind: guardNot, kids: []*guardNode{k}}, nil
	}
	rawKey, ok := m["key"]
	if !ok {
		return nil, errors.New(`a condition needs "key" and "op" (or "all", "any", "not")`)
	}
	key, ok := rawKey.(string)
	if !ok || key == "" {
		return nil, errs.New(`"key" must be a non-empty string, got `, jsonKind(rawKey))
	}
	rawOp, ok := m["op"]
	if !ok {
		return nil, errs.New("condition on ", strconv.Quote(key), " has no \"op\"")
	}
	op, ok := rawOp.(string)
	if !ok {
		return nil, errs.New("condition on ", strconv.Quote(key), ": \"op\" must be a string, got ", jsonKind(rawOp))
	}
	if !guardOps[op] {
		return nil, errs.New("condition on ", strconv.Quote(key), ": unknown op ", strconv.Quote(op), " (want eq, ne, truthy, exists, nonEmpty, in, gt, lt, gte or lte)")
	}
	value, has := m["value"]
	switch op {
	case "eq", "ne":
		if !has {
			return nil, errs.New("condition on ", strconv.Quote(key), ": op ", strconv.Quote(op), " needs a \"value\"")
		}
	case "in":
		if _, ok := arrayOf(value); !ok {
			return nil, errs.New("condition on ", strconv.Quote(key), ": op \"in\" needs an array \"value\", got ", jsonKind(value))
		}
	case "gt", "lt", "gte", "lte":
		if _, ok := numberOf(value); !ok {
			return nil, errs.New("condition on ", strconv.Quote(key), ": op ", strconv.Quote(op), " needs a number \"value\", got ", jsonKind(value))
		}
	default:
		value = nil // truthy, exists, nonEmpty take none
	}
	return &guardNode{kind: guardLeaf, key: key, op: op, value: CloneValue(value)}, nil
}

// Eval evaluates the guard against state. When it holds, held lists the
// leaf conditions that made it hold (the "because" receipt) and failed is
// nil; when it fails, failed lists the leaf conditions that made it fail
// (the evidence) and held is nil. Under any, a failure lists the failed
// leaves of every branch and a success the held leaves of every branch
// that held; under not, the inner leaves are reported with Negated
// flipped. Every leaf carries the state's value it saw in Actual (a
// copy). A nil *Guard holds, with nothing held or failed.
func (g *Guard) Eval(state State) (ok bool, held, failed []Condition) {
	if g == nil || g.root == nil {
		return true, nil, nil
	}
	ok, conds := g.root.eval(state)
	if ok {
		return true, conds, nil
	}
	return false, nil, conds
}

// eval reports whether n holds, and the leaves that support the answer:
// the held ones when it holds, the failed ones when it does not.
func (n *guardNode) eval(state State) (bool, []Condition) {
	switch n.kind {
	case guardAll, guardAny:
		var yes, no []Condition
		nyes := 0
		for _, k := range n.kids {
			ok, c := k.eval(state)
			if ok {
				nyes++
				yes = append(yes, c...)
			} else {
				no = append(no, c...)
			}
		}
		if n.kind == guardAll {
			if nyes == len(n.kids) {
				return true, yes
			}
			return false, no
		}
		if nyes > 0 {
			return true, yes
		}
		return false, no
	case guardNot:
		ok, c := n.kids[0].eval(state)
		for i := range c {
			c[i].Negated = !c[i].Negated
		}
		return !ok, c
	}
	actual, present := state.Lookup(n.key)
	c := Condition{Key: n.key, Op: n.op, Value: CloneValue(n.value)}
	if present {
		c.Actual = CloneValue(actual)
	}
	return leafHolds(n.op, n.value, actual, present), []Condition{c}
}

func leafHolds(op string, want, actual any, present bool) bool {
	switch op {
	case "exists":
		return present && actual != nil
	case "truthy":
		return present && truthy(actual)
	case "nonEmpty":
		if s, ok := actual.(string); ok {
			return s != ""
		}
		if a, ok := arrayOf(actual); ok {
			return len(a) > 0
		}
		if m, ok := objectOf(actual); ok {
			return len(m) > 0
		}
		return false
	case "eq":
		return present && EqualValues(actual, want)
	case "ne":
		return !present || !EqualValues(actual, want)
	case "in":
		if !present {
			return false
		}
		list, _ := arrayOf(want)
		for _, e := range list {
			if EqualValues(actual, e) {
				return true
			}
		}
		return false
	case "gt", "lt", "gte", "lte":
		a, ok := numberOf(actual)
		if !ok {
			return false
		}
		w, _ := numberOf(want)
		switch op {
		case "gt":
			return a > w
		case "lt":
			return a < w
		case "gte":
			return a >= w
		default:
			return a <= w
		}
	}
	return false
}

func truthy(v any) bool {
	if f, ok := numberOf(v); ok {
		return f != 0 && f == f
	}
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	}
	return true
}

// String returns short human text for the condition: `cart.items
// nonEmpty`, `role eq "admin"`, `not qty gt 3`. The state's value is not
// included.
func (c Condition) String() string {
	var b strings.Builder
	if c.Negated {
		b.WriteString("not ")
	}
	b.WriteString(c.Key)
	b.WriteByte(' ')
	b.WriteString(c.Op)
	switch c.Op {
	case "truthy", "exists", "nonEmpty":
	default:
		b.WriteByte(' ')
		b.Write(AppendValue(nil, c.Value))
	}
	return b.String()
}

// AppendJSON appends the condition as a compact JSON object
// {"key","op","value"?,"actual"?,"negated"?} to dst; value and actual are
// left out when nil, negated when false.
func (c Condition) AppendJSON(dst []byte) []byte { return AppendValue(dst, c) }

// fields returns the members AppendJSON writes, in order.
func (c Condition) fields() Obj {
	o := Obj{{"key", c.Key}, {"op", c.Op}}
	if c.Value != nil {
		o = append(o, Field{"value", c.Value})
	}
	if c.Actual != nil {
		o = append(o, Field{"actual", c.Actual})
	}
	if c.Negated {
		o = append(o, Field{"negated", true})
	}
	return o
}

// State is the app's state: JSON values by key. Keys may be dotted
// ("cart.items"); see Lookup.
type State map[string]any

// Lookup returns the value for key. An exact key wins; otherwise the key
// is split at dots and walked through nested objects: for "cart.items",
// s["cart"]["items"]. At each level the whole remaining key is tried
// first, then its dotted prefixes shortest first, so {"a.b":{"c":1}}
// also answers "a.b.c". The second result reports whether the key was
// found (a present null counts as found).
func (s State) Lookup(key string) (any, bool) {
	if v, ok := s[key]; ok {
		return v, true
	}
	return lookupDotted(s, key, 0)
}

func lookupDotted(m map[string]any, key string, depth int) (any, bool) {
	if depth > 0 {
		if v, ok := m[key]; ok {
			return v, true
		}
	}
	if depth > 64 {
		return nil, false
	}
	for i := 0; i < len(key); i++ {
		if key[i] != '.' {
			continue
		}
		inner, ok := objectOf(m[key[:i]])
		if !ok {
			continue
		}
		if v, ok := lookupDotted(inner, key[i+1:], depth+1); ok {
			return v, true
		}
	}
	return nil, false
}
