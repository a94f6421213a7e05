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
//   - The pc lookup table. The runtime finds the function that holds a pc (for every stack
//     walk: the collector's, a stack's growth, a panic's) through a table of 20-byte buckets,
//     one per 4096 units of pc. On wasm a pc is a function's index shifted left by 16 bits, so
//     the table has 16 buckets for every function: about 320 bytes each, almost all zeros or a
//     count that rises by one. The linker leaves its zeros out but pays a segment header for
//     nearly every bucket; once the segments are merged, it is a fifth of the raw module.
//     Everything in it follows from the function table's entries. With
//     [Options.ComputeFindFuncTable], Pack
//     checks that the table is the one it computes from them as the linker does, takes it out
//     of the data, and adds a start function that writes it when the module is instantiated:
//     the WebAssembly start function runs after the data segments are in memory and before any
//     export can be called, so no Go code ever sees the table missing. It is under 300 bytes
//     of code and runs once, in time linear in the buckets.
//
// The memory the module's code first sees is the same byte for byte, except for the line tables
// when they are dropped. Pack checks what it reads and returns an error, changing nothing,
// when the module is not what it expects: a data segment of a form the Go linker does not
// write, overlapping segments, (with DropLineTables) a function table whose layout is not
// the one of Go 1.20 and later, or (with ComputeFindFuncTable) a start function of the
// module's own, or a lookup table other than the one computed from the function table.
package wasmpack
