// Fuzzing the chat request parser: any body is either refused with an error
// or gives a request with a messages array of known roles; it never panics.

package studioproxy

import "testing"

func FuzzParseChatRequest(f *testing.F) {
	for _, seed := range []string{
		`{"messages":[{"role":"user","content":"hi"}]}`,
		`{"messages":[{"role":"assistant","content":"","toolCalls":[{"id":"c1","name":"t","arguments":{}}]},{"role":"tool","content":"{}","toolCallId":"c1","toolName":"t"}],"tools":[{"name":"t","inputSchema":{"type":"object"}}],"toolChoice":{"mode":"specific","toolName":"t"},"maxTokens":5,"temperature":0.5}`,
		`{"messages":[{"role":"system"}]}`,
		`{"messages":null}`,
		`[]`,
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := ParseChatRequest(body)
		if err != nil {
			if req != nil {
				t.Fatal("a request with an error")
			}
			return
		}
		if req.Messages == nil {
			t.Fatal("accepted without a messages array")
		}
		for _, m := range req.Messages {
			if m.Role != "user" && m.Role != "assistant" && m.Role != "tool" {
				t.Fatalf("accepted role %q", m.Role)
			}
		}
		_ = lastUser(req)
	})
}
