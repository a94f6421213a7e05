// object.go: encoding Go structs as JSON objects from a table of their fields, in place of a
// generated function per struct. internal/wire's generator writes one []Field per wire type;
// Writer.Struct is the one function that writes them all.

package jsonw

import "unsafe"

// Kind says how Struct writes a field and what Go type the field has.
type Kind uint8

// The kinds of field Struct writes, each with what omitempty leaves out.
const (
	String      Kind = iota + 1 // string; omitempty: ""
	Bool                        // bool; omitempty: false
	Int                         // int; omitempty: 0
	Int64                       // int64; omitempty: 0
	Float64                     // float64; omitempty: 0
	PtrInt64                    // *int64, nil writes null; omitempty: nil
	PtrFloat64                  // *float64, nil writes null; omitempty: nil
	Raw                         // []byte holding a JSON value, written as is, empty writes null; omitempty: empty
	Strings                     // []string, nil writes null (or [] with NonNil or NilSliceAsEmpty); omitempty: empty
	IntMap                      // map[string]int, nil writes null (or {} with NonNil or NilMapAsEmpty); omitempty: empty
	StringMap                   // map[string]string, as IntMap
	Struct                      // a struct, written from Field.Fields; never left out
	PtrStruct                   // a pointer to a struct, as Struct, nil writes null; omitempty: nil
	StructSlice                 // a slice of structs of Field.Size bytes each, as Strings; omitempty: empty
)

// Field is one member of the JSON object Struct writes for a struct.
type Field struct {
	// Prefix is the member's comma, quoted key and colon: `,"key":`. The first member written
	// drops the comma.
	Prefix string
	// Offset is where the Go field lies in the struct (unsafe.Offsetof).
	Offset uintptr
	// Kind says how to write the value, and the field's Go type.
	Kind Kind
	// OmitEmpty leaves the member out when the field is empty, as the Kind says.
	OmitEmpty bool
	// NonNil writes a nil slice (Strings, StructSlice) as [] and a nil map (IntMap, StringMap)
	// as {}, whatever the Writer's Flags: the generator sets it for a field tagged
	// `jsonw:"nonnil"`.
	NonNil bool
	// Fields are the fields of the struct a Struct, PtrStruct or StructSlice holds.
	Fields []Field
	// Size is the size of a StructSlice's element (unsafe.Sizeof).
	Size uintptr
}

// Struct writes the struct at p as a JSON object of fields, in their order.
//
// p must point to a struct of the type the fields were written for; internal/wire's generator
// writes them with unsafe.Offsetof from the struct's declaration, and its tests encode every
// kind.
func (w *Writer) Struct(p unsafe.Pointer, fields []Field) {
	w.buf = append(w.buf, '{')
	first := true
	for i := range fields {
		f := &fields[i]
		q := unsafe.Add(p, f.Offset)
		if f.OmitEmpty && empty(f.Kind, q) {
			continue
		}
		if first {
			w.buf = append(w.buf, f.Prefix[1:]...)
			first = false
		} else {
			w.buf = append(w.buf, f.Prefix...)
		}
		w.field(f, q)
	}
	w.buf = append(w.buf, '}')
}

// empty reports whether the field of kind k at p is what omitempty leaves out.
func empty(k Kind, p unsafe.Pointer) bool {
	switch k {
	case String:
		return *(*string)(p) == ""
	case Bool:
		return !*(*bool)(p)
	case Int:
		return *(*int)(p) == 0
	case Int64:
		return *(*int64)(p) == 0
	case Float64:
		return *(*float64)(p) == 0
	case PtrInt64, PtrFloat64, PtrStruct:
		return *(*unsafe.Pointer)(p) == nil
	case Raw, Strings, StructSlice:
		// Every slice header has its length in the same place, whatever the element type.
		return len(*(*[]byte)(p)) == 0
	case IntMap:
		return len(*(*map[string]int)(p)) == 0
	case StringMap:
		return len(*(*map[string]string)(p)) == 0
	}
	return false
}

// field writes the value of the field f at p.
func (w *Writer) field(f *Field, p unsafe.Pointer) {
	switch f.Kind {
	case String:
		w.buf = AppendString(w.buf, *(*string)(p))
	case Bool:
		w.Bool(*(*bool)(p))
	case Int:
		w.Int(*(*int)(p))
	case Int64:
		w.Int64(*(*int64)(p))
	case Float64:
		w.Float64(*(*float64)(p))
	case PtrInt64:
		if v := *(**int64)(p); v != nil {
			w.Int64(*v)
		} else {
			w.buf = append(w.buf, "null"...)
		}
	case PtrFloat64:
		if v := *(**float64)(p); v != nil {
			w.Float64(*v)
		} else {
			w.buf = append(w.buf, "null"...)
		}
	case Raw:
		w.Raw(*(*[]byte)(p), nil)
	case Strings:
		s := *(*[]string)(p)
		if s == nil && !f.NonNil && w.Flags&NilSliceAsEmpty == 0 {
			w.buf = append(w.buf, "null"...)
			return
		}
		w.buf = append(w.buf, '[')
		for i, v := range s {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.buf = AppendString(w.buf, v)
		}
		w.buf = append(w.buf, ']')
	case IntMap:
		writeMap(w, *(*map[string]int)(p), (*Writer).Int, f.NonNil)
	case StringMap:
		writeMap(w, *(*map[string]string)(p), (*Writer).String, f.NonNil)
	case Struct:
		w.Struct(p, f.Fields)
	case PtrStruct:
		if v := *(*unsafe.Pointer)(p); v != nil {
			w.Struct(v, f.Fields)
		} else {
			w.buf = append(w.buf, "null"...)
		}
	case StructSlice:
		s := *(*[]byte)(p) // the header: data, length (in elements) and capacity
		if s == nil && !f.NonNil && w.Flags&NilSliceAsEmpty == 0 {
			w.buf = append(w.buf, "null"...)
			return
		}
		w.buf = append(w.buf, '[')
		for i := 0; i < len(s); i++ {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.Struct(unsafe.Add(unsafe.Pointer(unsafe.SliceData(s)), uintptr(i)*f.Size), f.Fields)
		}
		w.buf = append(w.buf, ']')
	}
}

// writeMap writes m as a JSON object, each value by value, in the map's iteration order; nil
// writes null (or {} with nonNil or NilMapAsEmpty).
func writeMap[V any](w *Writer, m map[string]V, value func(*Writer, V), nonNil bool) {
	if m == nil && !nonNil && w.Flags&NilMapAsEmpty == 0 {
		w.buf = append(w.buf, "null"...)
		return
	}
	w.buf = append(w.buf, '{')
	first := true
	for k, v := range m {
		if !first {
			w.buf = append(w.buf, ',')
		}
		first = false
		w.buf = append(AppendString(w.buf, k), ':')
		value(w, v)
	}
	w.buf = append(w.buf, '}')
}
