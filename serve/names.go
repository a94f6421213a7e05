// Tool names: composing <graph><sep><door>[<sep><journey>] and encoding a
// composed name that is not [A-Za-z0-9_.-]+ injectively as _enc_ plus
// escapes.

package serve

import "strings"

// encPrefix marks an encoded tool name.
const encPrefix = "_enc_"

// plainName reports whether s is non-empty and only [A-Za-z0-9_.-]: the
// same alphabet as graph ids.
func plainName(s string) bool { return ValidID(s) }

// EncodeToolName returns name when it is [A-Za-z0-9_.-]+ and does not start
// with _enc_; otherwise _enc_ followed by name with every byte outside
// [A-Za-z0-9.-] written as _ and two lowercase hex digits. Distinct names
// always encode to distinct names.
func EncodeToolName(name string) string {
	if plainName(name) && !strings.HasPrefix(name, encPrefix) {
		return name
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.Grow(len(encPrefix) + len(name)*2)
	b.WriteString(encPrefix)
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('_')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// composeName joins parts with sep and encodes the result.
func composeName(sep string, parts ...string) string {
	return EncodeToolName(strings.Join(parts, sep))
}
