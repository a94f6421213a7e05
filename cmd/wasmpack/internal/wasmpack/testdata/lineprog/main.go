// Command lineprog is the wasip1 program cmd/wasmpack/internal/wasmpack's tests pack: it exercises what the
// runtime needs its function table for — stack growth, the collector's stack scan, panics,
// goroutines — and prints where it is, so the test can compare the packed build with the
// linker's.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

type node struct {
	next *node
	v    int
}

// deep recurses n frames, allocating on the way down, and collects at the bottom, so the stack
// grows (copied by its frame sizes) and is scanned (by its stack maps) with live pointers on it.
func deep(n int, list *node) int {
	if n == 0 {
		runtime.GC()
		sum := 0
		for p := list; p != nil; p = p.next {
			sum += p.v
		}
		return sum
	}
	var pad [64]byte
	pad[n%64] = byte(n)
	return deep(n-1, &node{next: list, v: n + int(pad[n%64])})
}

func recovered() (msg string) {
	defer func() { msg = fmt.Sprint(recover()) }()
	var m map[string]int
	m["x"]++ // a runtime panic: assignment to a nil map
	return "no panic"
}

func main() {
	_, file, line, ok := runtime.Caller(0)
	fmt.Printf("caller: %s:%d %v\n", file[strings.LastIndex(file, "/")+1:], line, ok)
	results := make(chan int)
	for g := 0; g < 4; g++ {
		go func(g int) { results <- deep(3000+g, nil) }(g)
	}
	total := 0
	for g := 0; g < 4; g++ {
		total += <-results
	}
	fmt.Println("sum:", total)
	fmt.Println("recovered:", recovered())
	buf := make([]byte, 1<<16)
	fmt.Printf("stack:\n%s\n", buf[:runtime.Stack(buf, false)])
	os.Stdout.Sync()
}
