package gopool

import (
	"sync"
	"testing"
)

// Every function handed to a pool runs, including ones handed from inside
// another and more at once than it keeps parked; functions handed one
// after another reuse one goroutine; no more than max stay parked.
func TestPoolRunsEveryFunctionAndReusesItsGoroutines(t *testing.T) {
	cases := []struct {
		name     string
		parallel int // functions running at once
		rounds   int // times the batch is handed
		max      int
	}{
		{"one at a time", 1, 20, 8},
		{"as many as are kept", 8, 5, 8},
		{"three times as many as are kept", 24, 3, 8},
		{"none kept", 4, 3, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &pool{max: c.max}
			var mu sync.Mutex
			ran := 0
			for r := 0; r < c.rounds; r++ {
				var wg sync.WaitGroup
				release := make(chan struct{})
				var started sync.WaitGroup
				for i := 0; i < c.parallel; i++ {
					wg.Add(2)
					started.Add(1)
					p.run(func() {
						defer wg.Done()
						started.Done()
						<-release // the batch runs at once
						p.run(func() {
							defer wg.Done()
							mu.Lock()
							ran++
							mu.Unlock()
						})
					})
				}
				started.Wait()
				close(release)
				wg.Wait()
				waitIdle(t, p)
			}
			if want := c.parallel * c.rounds; ran != want {
				t.Fatalf("%d inner functions handed, %d ran", want, ran)
			}
			p.mu.Lock()
			made, parked := p.made, len(p.idle)
			p.mu.Unlock()
			if parked > c.max {
				t.Errorf("%d workers parked, more than max %d", parked, c.max)
			}
			// A batch of n at once needs n workers (their inner functions reuse
			// them or take new ones); later batches reuse the parked ones.
			limit := 2*c.parallel + (c.rounds-1)*max(0, 2*c.parallel-c.max)
			if made > limit {
				t.Errorf("%d workers started for %d rounds of %d, want at most %d", made, c.rounds, c.parallel, limit)
			}
			if c.parallel == 1 && c.max > 0 && made > 2 {
				t.Errorf("functions handed one after another started %d workers, want at most 2", made)
			}
		})
	}
}

// waitIdle waits until every worker has finished its function: each is
// parked, or ended because max were.
func waitIdle(t *testing.T, p *pool) {
	t.Helper()
	for i := 0; ; i++ {
		p.mu.Lock()
		parked, alive := len(p.idle), p.made-p.done
		p.mu.Unlock()
		if parked == alive {
			return
		}
		if i > 1e6 {
			t.Fatalf("%d workers parked of %d alive", parked, alive)
		}
		runtimeGosched()
	}
}

// Go runs a function on another goroutine under either toolchain.
func TestGo(t *testing.T) {
	done := make(chan struct{})
	Go(func() { close(done) })
	<-done
}
