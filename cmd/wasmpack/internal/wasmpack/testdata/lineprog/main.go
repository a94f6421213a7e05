// Command lineprog is the wasip1 program cmd/wasmpack/internal/wasmpack's tests pack: it exercises
// what the runtime needs its function table for — stack growth, the collector's stack scan,
// panics, goroutines — and prints where it is, so the test can compare the packed build with the
// linker's. It prints with println (to standard error) and imports nothing but the runtime: fmt
// and os would add a third to its code, and the tests run it in wazero's interpreter.
package main

import "runtime"

type node struct {
	next *node
	v    int
}

// depth is how many frames deep recurses: some 40 KB of stack (a frame of deep is over 100
// bytes), many times what a goroutine starts with, so each goroutine's stack grows and is copied
// several times. Deeper costs the tests time in wazero's interpreter and proves nothing more.
const depth = 300

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
	defer func() { msg = recover().(runtime.Error).Error() }()
	var m map[string]int
	m["x"]++ // a runtime panic: assignment to a nil map
	return "no panic"
}

// base returns the last element of a slash-separated path.
func base(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[i+1:]
		}
	}
	return path
}

// itoa returns n in decimal (n ≥ 0).
func itoa(n int) string {
	b := []byte{byte('0' + n%10)}
	for n /= 10; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func main() {
	_, file, line, ok := runtime.Caller(0)
	println("caller:", base(file)+":"+itoa(line), ok)
	results := make(chan int)
	for g := 0; g < 2; g++ {
		go func(g int) { results <- deep(depth+g, nil) }(g)
	}
	total := 0
	for g := 0; g < 2; g++ {
		total += <-results
	}
	println("sum:", total)
	println("recovered:", recovered())
	buf := make([]byte, 1<<16)
	println("stack:\n" + string(buf[:runtime.Stack(buf, false)]))
}
