// The pool of parked goroutines that Go uses under TinyGo (gopool_tinygo.go);
// toolchain-neutral, so the Go toolchain's tests exercise it too.

package gopool

import "sync"

// pool keeps up to max finished goroutines parked for the next functions.
type pool struct {
	max  int
	mu   sync.Mutex
	idle []chan func() // the parked workers, each waiting on its own channel
	made int           // workers started, for the tests
	done int           // workers that ended (max were parked), for the tests
}

// run runs f on a parked worker when there is one, else on a new one,
// which parks when f returns unless max are parked already.
func (p *pool) run(f func()) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		w <- f // buffered: never blocks
		return
	}
	p.made++
	p.mu.Unlock()
	w := make(chan func(), 1)
	w <- f
	go p.work(w)
}

// work runs the functions handed to w until it finishes one with max
// workers parked already.
func (p *pool) work(w chan func()) {
	for f := range w {
		f()
		p.mu.Lock()
		if len(p.idle) >= p.max {
			p.done++
			p.mu.Unlock()
			return
		}
		p.idle = append(p.idle, w)
		p.mu.Unlock()
	}
}
