// The recorded streams of five OpenAI-compatible servers
// (testdata/streams/<server>/<case>.sse), each translated and compared with
// the events it must become (<case>.events.jsonl); testdata/streams/README.md
// says where each shape comes from.

package openai

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentwasm/agentwasm/internal/wire"
)

func TestRecordedStreams(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "streams", "*", "*.sse"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no recorded streams")
	servers := map[string]bool{}
	for _, file := range files {
		server := filepath.Base(filepath.Dir(file))
		name := strings.TrimSuffix(filepath.Base(file), ".sse")
		servers[server] = true
		t.Run(server+"/"+name, func(t *testing.T) {
			body, err := os.ReadFile(file)
			require.NoError(t, err)
			want := readEvents(t, strings.TrimSuffix(file, ".sse")+".events.jsonl")
			require.NotEmpty(t, want, "an empty .events.jsonl")
			// The request the recordings answer: get_weather and
			// studio.journey.publish_map (sent as studio_journey_publish_map).
			_, names, err := BuildRequest(streamReq(), "")
			require.NoError(t, err)
			got := run(t, body, false, TranslatorOptions{Names: names})
			checkGrammar(t, got)
			require.Equal(t, len(want), len(got), "events: got %+v", got)
			for i := range want {
				w, g := want[i], got[i]
				// Arguments are compared as JSON values: vLLM's have spaces.
				if len(w.ToolArguments) > 0 || len(g.ToolArguments) > 0 {
					require.NotEmpty(t, w.ToolArguments, "event %d: unexpected toolArguments %s", i, g.ToolArguments)
					require.NotEmpty(t, g.ToolArguments, "event %d: no toolArguments, want %s", i, w.ToolArguments)
					assert.JSONEq(t, string(w.ToolArguments), string(g.ToolArguments), "event %d", i)
				}
				w.ToolArguments, g.ToolArguments = nil, nil
				assert.Equal(t, w, g, "event %d", i)
			}
			if last := want[len(want)-1]; last.Type == eventError {
				// A case that ends in an error: its code and message, named.
				assert.Equal(t, last.ErrorCode, got[len(got)-1].ErrorCode)
				assert.Equal(t, last.ErrorMessage, got[len(got)-1].ErrorMessage)
			}
		})
	}
	for _, s := range []string{"openai", "ollama", "llamacpp", "vllm", "lmstudio"} {
		assert.True(t, servers[s], "no recorded streams of %s", s)
	}
}

// TestRecordedChunksDecode checks that every recorded chunk decodes as an
// OpenAIChunk on its own, whatever extra fields its server adds (vLLM's
// stop_reason, llama.cpp's timings, OpenAI's obfuscation).
func TestRecordedChunksDecode(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "streams", "*", "*.sse"))
	require.NoError(t, err)
	for _, file := range files {
		body, err := os.ReadFile(file)
		require.NoError(t, err)
		for n, line := range strings.Split(string(body), "\n") {
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok || data == "[DONE]" {
				continue
			}
			var c wire.OpenAIChunk
			assert.NoError(t, wire.Unmarshal([]byte(data), &c), "%s line %d", file, n+1)
		}
	}
}
