//go:build race

// raceEnabled under the race detector: the one test that compiles the module
// from nothing twice (TestCompilationCacheOnDisk) runs without it.

package wazerotest_test

const raceEnabled = true
