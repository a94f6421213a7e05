package wasmpack_test

import (
	"fmt"

	"github.com/agentwasm/agentwasm/cmd/wasmpack/internal/wasmpack"
)

// A module whose data section holds two stretches of data five zero bytes apart, as two
// segments: Pack writes them as one, with the zeros filled in.
func ExamplePack() {
	module := []byte{
		0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00, // the header
		11, 15, // the data section: 15 bytes
		2,                              // two segments
		0, 0x41, 16, 0x0b, 2, 'g', 'o', // at address 16: "go"
		0, 0x41, 23, 0x0b, 2, 'o', 'k', // at address 23: "ok"
	}
	packed, stats, err := wasmpack.Pack(module, wasmpack.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(stats)
	fmt.Printf("%q\n", packed[len(packed)-9:])
	// Output:
	// data segments 2 → 1
	// "go\x00\x00\x00\x00\x00ok"
}
