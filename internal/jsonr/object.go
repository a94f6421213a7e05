// object.go: decoding JSON objects into Go structs from a table of their fields, in place of a
// generated function per struct. internal/wire's generator writes one []Field per wire type;
// Object is the one function that reads them all.

package jsonr

import "unsafe"

// Kind says how Object reads a field's value and what Go type the field has.
type Kind uint8

// The kinds of field Object reads. For each, a JSON null is consumed and, where the comment says
// so, sets the field to its zero value; otherwise the field keeps what it had.
const (
	String     Kind = iota + 1 // string; null keeps
	Bool                       // bool; null keeps
	Int                        // int; null keeps
	Int64                      // int64; null keeps
	Float64                    // float64; null keeps
	PtrInt                     // *int; null sets nil, a number fills a new int if the field is nil
	PtrInt64                   // *int64, as PtrInt
	PtrFloat64                 // *float64, as PtrInt
	PtrBool                    // *bool, as PtrInt
	Raw                        // []byte (a raw JSON value kept as its bytes); null keeps
	Strings                    // []string; null sets nil, [] an empty slice, a null element ""
	StringMap                  // map[string]string; null keeps, {} sets nil, a null value ""
	Func                       // anything else: Field.Decode reads it
)

// Field is one member of a JSON object that Object decodes into a struct.
type Field struct {
	// Key is the member's name in JSON; Object matches it exactly.
	Key string
	// Offset is where the Go field lies in the struct (unsafe.Offsetof).
	Offset uintptr
	// Kind says how to read the value, and the field's Go type.
	Kind Kind
	// Decode reads the value into the field at p, for Kind Func.
	Decode func(l *Lexer, p unsafe.Pointer)
}

// Object decodes a JSON object into the struct at p, whose fields are described by fields:
// members whose key no field has are skipped whole, and null for the whole object leaves the
// struct as it is. At the top level (nothing read before it) it also requires the end of input,
// as Consumed does.
//
// p must point to a struct of the type the fields were written for; internal/wire's generator
// writes them with unsafe.Offsetof from the struct's declaration, and its tests decode every
// kind.
func (l *Lexer) Object(p unsafe.Pointer, fields []Field) {
	top := l.IsStart()
	if l.IsNull() {
		if top {
			l.Consumed()
		}
		l.Skip()
		return
	}
	l.Delim('{')
	for !l.IsDelim('}') {
		key := l.UnsafeFieldName(false)
		l.WantColon()
		f := findField(fields, key)
		if f == nil {
			l.SkipRecursive()
		} else {
			l.field(unsafe.Add(p, f.Offset), f)
		}
		l.WantComma()
	}
	l.Delim('}')
	if top {
		l.Consumed()
	}
}

// findField returns the field whose key is key, or nil.
func findField(fields []Field, key string) *Field {
	for i := range fields {
		if fields[i].Key == key {
			return &fields[i]
		}
	}
	return nil
}

// field reads the next value into the Go field at p, as f says.
func (l *Lexer) field(p unsafe.Pointer, f *Field) {
	if f.Kind == Func {
		f.Decode(l, p)
		return
	}
	if l.IsNull() {
		l.Skip()
		switch f.Kind {
		case PtrInt:
			*(**int)(p) = nil
		case PtrInt64:
			*(**int64)(p) = nil
		case PtrFloat64:
			*(**float64)(p) = nil
		case PtrBool:
			*(**bool)(p) = nil
		case Strings:
			*(*[]string)(p) = nil
		}
		return
	}
	switch f.Kind {
	case String:
		*(*string)(p) = l.String()
	case Bool:
		*(*bool)(p) = l.Bool()
	case Int:
		*(*int)(p) = l.Int()
	case Int64:
		*(*int64)(p) = l.Int64()
	case Float64:
		*(*float64)(p) = l.Float64()
	case PtrInt:
		q := (**int)(p)
		if *q == nil {
			*q = new(int)
		}
		**q = l.Int()
	case PtrInt64:
		q := (**int64)(p)
		if *q == nil {
			*q = new(int64)
		}
		**q = l.Int64()
	case PtrFloat64:
		q := (**float64)(p)
		if *q == nil {
			*q = new(float64)
		}
		**q = l.Float64()
	case PtrBool:
		q := (**bool)(p)
		if *q == nil {
			*q = new(bool)
		}
		**q = l.Bool()
	case Raw:
		if data := l.Raw(); l.Ok() {
			q := (*[]byte)(p)
			*q = append((*q)[:0], data...)
		}
	case Strings:
		l.strings((*[]string)(p))
	case StringMap:
		l.stringMap((*map[string]string)(p))
	}
}

// strings reads a JSON array of strings (not null) into *p, reusing its array.
func (l *Lexer) strings(p *[]string) {
	l.Delim('[')
	if *p == nil {
		*p = make([]string, 0, 4)
	} else {
		*p = (*p)[:0]
	}
	for !l.IsDelim(']') {
		var s string
		if l.IsNull() {
			l.Skip()
		} else {
			s = l.String()
		}
		*p = append(*p, s)
		l.WantComma()
	}
	l.Delim(']')
}

// stringMap reads a JSON object of strings (not null) into a new map at *p; {} sets nil.
func (l *Lexer) stringMap(p *map[string]string) {
	l.Delim('{')
	if l.IsDelim('}') {
		*p = nil
	} else {
		*p = make(map[string]string)
	}
	for !l.IsDelim('}') {
		key := l.String()
		l.WantColon()
		var v string
		if l.IsNull() {
			l.Skip()
		} else {
			v = l.String()
		}
		(*p)[key] = v
		l.WantComma()
	}
	l.Delim('}')
}

// Ptr reads a JSON value into *p through dec: null sets *p to nil; anything else is read into
// *p, a new T when *p is nil. The generated field tables use it for pointers to structs.
func Ptr[T any](l *Lexer, p **T, dec func(*T, *Lexer)) {
	if l.IsNull() {
		l.Skip()
		*p = nil
		return
	}
	if *p == nil {
		*p = new(T)
	}
	dec(*p, l)
}

// Slice reads a JSON array into *p, each element through dec: null sets *p to nil, [] makes it
// empty but not nil, a null element is T's zero value, and *p's array is reused. The generated
// field tables use it for slices of structs.
func Slice[T any](l *Lexer, p *[]T, dec func(*T, *Lexer)) {
	if l.IsNull() {
		l.Skip()
		*p = nil
		return
	}
	l.Delim('[')
	if *p == nil {
		*p = []T{}
	} else {
		*p = (*p)[:0]
	}
	for !l.IsDelim(']') {
		var v T
		if l.IsNull() {
			l.Skip()
		} else {
			dec(&v, l)
		}
		*p = append(*p, v)
		l.WantComma()
	}
	l.Delim(']')
}
