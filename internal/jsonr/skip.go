// The skipper: SkipRecursive and Raw check a nested value without
// recursion, so that how deeply it may nest is a bound on memory (a byte
// per open array or object), not on the goroutine's stack.

package jsonr

import "strconv"

// skip checks the value at i (after white space) with the scanners and
// error messages of Value's walker, and returns the offset after it, or -1
// after recording an error. Arrays and objects nest at most max deep.
func (l *Lexer) skip(i, max int) int {
	d := l.Data
	var inline [32]byte
	open := inline[:0] // the '{' or '[' of each array or object not yet closed
value:
	for {
		i = skipSpace(d, i)
		if i >= len(d) {
			l.fail(i, "unexpected end of input, want a value")
			return -1
		}
		switch c := d[i]; c {
		case '{', '[':
			if len(open) >= max {
				l.fail(i, "nesting deeper than "+strconv.Itoa(max))
				return -1
			}
			i = skipSpace(d, i+1)
			switch {
			case c == '{' && i < len(d) && d[i] == '}', c == '[' && i < len(d) && d[i] == ']':
				i++ // empty: a value ends here
			case c == '{':
				open = append(open, c)
				if i = l.memberKey(i); i < 0 {
					return -1
				}
				continue value
			default:
				open = append(open, c)
				continue value
			}
		case '"':
			i = l.scanString(i)
		case 't':
			i = l.scanWord(i, "true")
		case 'f':
			i = l.scanWord(i, "false")
		case 'n':
			i = l.scanWord(i, "null")
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			i = l.scanNumber(i)
		default:
			return l.unexpected(i, "a value")
		}
		if i < 0 {
			return -1
		}
		// A value ended at i: close what ends after it, or go on to the
		// next member or element.
		for len(open) > 0 {
			i = skipSpace(d, i)
			inObject := open[len(open)-1] == '{'
			if i >= len(d) {
				where := "array"
				if inObject {
					where = "object"
				}
				l.fail(i, "unexpected end of input in an "+where)
				return -1
			}
			switch c := d[i]; {
			case c == ',' && inObject:
				if i = l.memberKey(skipSpace(d, i+1)); i < 0 {
					return -1
				}
				continue value
			case c == ',':
				i++
				continue value
			case c == '}' && inObject, c == ']' && !inObject:
				open = open[:len(open)-1]
				i++
			case inObject:
				return l.unexpected(i, "',' or '}' in an object")
			default:
				return l.unexpected(i, "',' or ']' in an array")
			}
		}
		return i
	}
}

// unexpected records that the byte at i (or the end of the input) is not
// the want that must come there, and returns -1.
func (l *Lexer) unexpected(i int, want string) int {
	l.fail(i, "unexpected "+describe(l.Data, i)+", want "+want)
	return -1
}

// memberKey checks the object key at i and the colon after it, and returns
// the offset after the colon, or -1 after recording an error.
func (l *Lexer) memberKey(i int) int {
	d := l.Data
	if i >= len(d) || d[i] != '"' {
		return l.unexpected(i, "an object key")
	}
	if i = l.scanString(i); i < 0 {
		return -1
	}
	if i = skipSpace(d, i); i >= len(d) || d[i] != ':' {
		return l.unexpected(i, "':' after an object key")
	}
	return i + 1
}
