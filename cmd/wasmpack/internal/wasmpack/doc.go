// Package wasmpack rewrites a WebAssembly module written by the Go toolchain's linker so that
// its compressed download is smaller, without changing what the module does.
//
// The Go linker optimizes a module's raw bytes. Two of its choices make the brotli (or gzip)
// download larger than it needs to be:
//
//   - Data segments. The linker starts a new data segment after every run of more than 16 zero
//     bytes, so a module of ours has some 54,000 segments, each with a header of about seven
//     bytes whose offset differs from the last. The headers are nearly incompressible and they
//     cut the data into pieces that a compressor matches less well. [Pack] rebuilds the segments
//     from the memory image they describe, filling every run of zeros up to [Options.MaxGap]
//     bytes: the raw module grows by the zeros, which cost a compressor almost nothing, and the
//     download shrinks.
//   - Line tables. Every function carries a table from code offsets to file and line numbers,
//     which the runtime reads only to print file:line in a stack trace and to answer
//     runtime.Caller. With [Options.DropLineTables], Pack points each function at no table and
//     zeroes the tables' bytes (and the file tables), so a stack trace names each function but
//     prints "?:0" for its place. The tables the runtime needs to run — frame sizes, stack
//     maps, unsafe points, inlining — are left byte for byte.
//
// The memory the module starts with is the same byte for byte, except for the line tables
// when they are dropped. Pack checks what it reads and returns an error, changing nothing,
// when the module is not what it expects: a data segment of a form the Go linker does not
// write, overlapping segments, or (with DropLineTables) a function table whose layout is not
// the one of Go 1.20 and later.
package wasmpack
