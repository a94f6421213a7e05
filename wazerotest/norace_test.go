//go:build !race

// raceEnabled off: a plain go test runs every test here.

package wazerotest_test

const raceEnabled = false
