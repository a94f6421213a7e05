//go:build !js && !wasip1

package command_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/agentwasm/agentwasm/internal/wire"
	"github.com/agentwasm/agentwasm/wasm/internal/command"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeRow is one row of wasm/README.md's command table.
type readmeRow struct {
	ops  []string // the op names of the first column (one row may name several)
	sync string   // the sync column: "yes", "no", or "" when the table has none
}

var backticked = regexp.MustCompile("`([^`]+)`")

// readmeCommands parses the markdown table of wasm/README.md's Commands
// section: its first column's op names and, if it has one, the sync column.
func readmeCommands(t *testing.T) []readmeRow {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	text := string(b)
	start := strings.Index(text, "\n## Commands\n")
	require.GreaterOrEqual(t, start, 0, "wasm/README.md has no Commands section")
	section := text[start+len("\n## Commands\n"):]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var rows []readmeRow
	syncCol := -1
	inTable := false
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break // the first table of the section is the command table
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case !inTable: // the header
			require.Equal(t, "op", cells[0], "the command table's first column is the op: %s", line)
			for i, c := range cells {
				if c == "sync" {
					syncCol = i
				}
			}
			inTable = true
		case strings.Trim(line, "|-: ") == "": // the separator
		default:
			row := readmeRow{}
			for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
				row.ops = append(row.ops, m[1])
			}
			require.NotEmpty(t, row.ops, "a command table row names no op: %s", line)
			if syncCol >= 0 {
				require.Greater(t, len(cells), syncCol, "a command table row has no sync cell: %s", line)
				row.sync = cells[syncCol]
			}
			rows = append(rows, row)
		}
	}
	require.NotEmpty(t, rows, "wasm/README.md's Commands section has no table")
	return rows
}

func TestREADMECommandTableIsTheOpTable(t *testing.T) {
	rows := readmeCommands(t)
	var documented []string
	sync := map[string]string{}
	for _, r := range rows {
		for _, op := range r.ops {
			documented = append(documented, op)
			sync[op] = r.sync
		}
	}
	var names []string
	for _, o := range command.Ops() {
		names = append(names, o.Name)
	}
	assert.ElementsMatch(t, names, documented,
		"wasm/README.md's command table must list exactly the ops of wasm/internal/command's table (ops.go)")

	for _, o := range command.Ops() {
		got, ok := sync[o.Name]
		if !ok || got == "" {
			continue // not documented (reported above), or the table has no sync column
		}
		want := map[bool]string{true: "yes", false: "no"}[o.Sync]
		if !o.Sync && o.SyncFor(&wire.Command{Op: o.Name}) {
			want = "without `settleWithinMs`" // port.call: sync unless it waits for a fire to settle
		}
		assert.Equal(t, want, got, "wasm/README.md's sync column for %s disagrees with ops.go", o.Name)
	}
}

func TestOpTable(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range command.Ops() {
		assert.False(t, seen[o.Name], "%s is in the table twice", o.Name)
		seen[o.Name] = true
		assert.NotEmpty(t, o.Summary, "%s has no summary", o.Name)
		assert.Equal(t, o.TestOnly, strings.HasPrefix(o.Name, "debug."), "%s: exactly the debug.* ops are test-only", o.Name)
		got, ok := command.LookupOp(o.Name)
		assert.True(t, ok, o.Name)
		assert.Equal(t, [3]any{o.Name, o.Sync, o.TestOnly}, [3]any{got.Name, got.Sync, got.TestOnly})
	}

	cases := []struct {
		op    string
		known bool
		sync  bool
	}{
		{"version", true, true},
		{"session.create", true, true},
		{"session.chat", true, false},
		{"session.refreshTools", true, false},
		{"session.reconnect", true, false},
		{"poll", true, false},
		{"debug.panic", true, false},
		{"debug.crash", true, false},
		{"port.create", true, true},
		{"port.call", true, false},
		{"port.mcp", true, false},
		{"port.approveAsk", true, true},
		{"session.explode", false, false},
		{"", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.op, func(t *testing.T) {
			o, ok := command.LookupOp(tc.op)
			assert.Equal(t, tc.known, ok)
			assert.Equal(t, tc.sync, o.Sync)
		})
	}
}

// TestSyncForAndReads: which commands the js build serves through callSync
// (Op.SyncFor), and that an op marked Reads is a sync one.
func TestSyncForAndReads(t *testing.T) {
	cases := []struct {
		name    string
		command wire.Command
		sync    bool
	}{
		{"a sync op", wire.Command{Op: "version"}, true},
		{"an op that waits", wire.Command{Op: "session.chat"}, false},
		{"port.call without settleWithinMs", wire.Command{Op: "port.call", Name: "shop.whats_here"}, true},
		{"port.call with settleWithinMs", wire.Command{Op: "port.call", Name: "shop.do_action", SettleWithinMs: 1000}, false},
		{"port.mcp", wire.Command{Op: "port.mcp"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, ok := command.LookupOp(tc.command.Op)
			require.True(t, ok)
			assert.Equal(t, tc.sync, o.SyncFor(&tc.command))
		})
	}
	reads := 0
	for _, o := range command.Ops() {
		if o.Reads {
			reads++
			assert.True(t, o.Sync, "%s only reads, so it must be a sync op", o.Name)
			assert.False(t, strings.HasSuffix(o.Name, ".close") || strings.HasSuffix(o.Name, "Ask"), "%s changes state: it is not a read", o.Name)
		}
	}
	assert.Equal(t, 11, reads, "the ops marked Reads")
}

// TestEveryOpIsDispatched sends every op of the table, with ids nothing is
// open under, and checks that none is answered as unknown (debug.panic has
// TestDebugPanicIsRecovered).
func TestEveryOpIsDispatched(t *testing.T) {
	for _, o := range command.Ops() {
		if o.TestOnly {
			continue
		}
		t.Run(o.Name, func(t *testing.T) {
			cmd := map[string]any{"op": o.Name, "session": 9999, "port": 9999}
			if o.Name == "session.create" {
				cmd = map[string]any{"op": o.Name, "options": map[string]any{"disableToolDiscovery": true}}
			}
			r, raw := call(t, context.Background(), command.New(false), cmd, command.Hooks{})
			if !r.OK {
				assert.NotContains(t, r.Error.Message, "unknown op", raw)
			}
		})
	}
}

func TestUnknownOpListsTheOps(t *testing.T) {
	r, raw := call(t, context.Background(), command.New(false), `{"op":"nope"}`, command.Hooks{})
	require.False(t, r.OK, raw)
	_, list, found := strings.Cut(r.Error.Message, "; the ops are ")
	require.True(t, found, raw)
	var want []string
	for _, o := range command.Ops() {
		if !o.TestOnly {
			want = append(want, o.Name)
		}
	}
	assert.Equal(t, want, strings.Split(list, ", "), "the message lists every op but the test-only ones, in table order")
}
