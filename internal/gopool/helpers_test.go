package gopool

import "runtime"

var runtimeGosched = runtime.Gosched
