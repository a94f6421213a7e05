// Command wasmpack rewrites a WebAssembly module written by the Go toolchain so that its brotli
// download is smaller (package cmd/wasmpack/internal/wasmpack says how and what it costs). The Makefile runs
// it on the Go toolchain's wasm modules after the linker (with -drop-lines on the js ones):
//
//	wasmpack [-max-gap N] [-drop-lines] -o OUT IN
package main

import (
	"flag"
	"os"

	"github.com/agentwasm/agentwasm/cmd/wasmpack/internal/wasmpack"
)

func main() {
	out := flag.String("o", "", "the packed module's path (required)")
	maxGap := flag.Int("max-gap", wasmpack.DefaultMaxGap, "the longest run of zero bytes filled in to merge two data segments; negative: none")
	dropLines := flag.Bool("drop-lines", false, "drop the functions' file and line tables (stack traces print ?:0 for places)")
	flag.Usage = func() {
		os.Stderr.WriteString("usage: wasmpack [-max-gap N] [-drop-lines] -o OUT IN\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out, wasmpack.Options{MaxGap: *maxGap, DropLineTables: *dropLines}); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}

// run packs the module at in into out and logs what it did.
func run(in, out string, opts wasmpack.Options) error {
	module, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	packed, stats, err := wasmpack.Pack(module, opts)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, packed, 0o644); err != nil {
		return err
	}
	os.Stdout.WriteString("wasmpack " + out + ": " + stats.String() + "\n")
	return nil
}
