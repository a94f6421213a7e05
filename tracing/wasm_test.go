//go:build !js && !wasip1

// The wasm modules link no tracing: neither the OpenTelemetry packages nor
// this one are among the dependencies of ./wasm/js and ./wasm/wasip1, for
// Go and for TinyGo (its build tag), with and without the session-only
// and no-direct variants' tags. A page traces in the JS loader instead.

package tracing_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWasmBuildsLinkNoTracing(t *testing.T) {
	cases := []struct{ goos, pkg, tags string }{
		{"js", "./wasm/js", ""},
		{"js", "./wasm/js", "tinygo"},
		{"js", "./wasm/js", "agentwasm_sessiononly"},
		{"js", "./wasm/js", "tinygo,agentwasm_sessiononly"},
		{"js", "./wasm/js", "agentwasm_nodirect"},
		{"wasip1", "./wasm/wasip1", ""},
		{"wasip1", "./wasm/wasip1", "tinygo"},
	}
	for _, c := range cases {
		t.Run(c.goos+"/"+c.tags, func(t *testing.T) {
			cmd := exec.Command("go", "list", "-deps", "-tags", c.tags, c.pkg)
			cmd.Dir = ".." // the module's root
			cmd.Env = append(os.Environ(), "GOOS="+c.goos, "GOARCH=wasm", "CGO_ENABLED=0")
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			deps := strings.Fields(string(out))
			require.Contains(t, deps, "github.com/agentwasm/agentwasm/session", "the listing is the module's")
			for _, d := range deps {
				assert.False(t, strings.HasPrefix(d, "go.opentelemetry.io/"), "%s links %s", c.pkg, d)
				assert.NotEqual(t, "github.com/agentwasm/agentwasm/tracing", d, "%s links the tracing package", c.pkg)
			}
		})
	}
}
