// Small readers of raw JSON text shared by session and session/mcpclient:
// trimming JSON white space and naming the kind of a value.

package jsonr

// TrimSpace drops JSON white space around b.
func TrimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// KindName names the kind of the JSON value that starts b, for a message:
// "an object", "an array", "a string", "a number", "a boolean", "null";
// "empty" for white space only, else "not JSON".
func KindName(b []byte) string {
	b = TrimSpace(b)
	if len(b) == 0 {
		return "empty"
	}
	switch b[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return "a number"
	}
	return "not JSON"
}
