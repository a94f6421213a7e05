// This file is added to TinyGo's runtime package by scripts/tinygo.sh (the
// module's TinyGo root; docs/SIZE.md, How the TinyGo build got light). It gives the maps that
// package initializers make a seed of 0, and every later map a random one.
//
// TinyGo runs package initializers at compile time where it can, so a map
// literal becomes data in the module. A map's seed comes from fastrand,
// whose state the host seeds only when the module starts; reading it at
// compile time fails, so every map a package initializer makes (the
// unicode package's tables alone are three hundred entries) was built by
// code at start instead, and kept every table it names. A map made before
// main runs holds the program's own keys, never input, so a fixed seed
// costs it nothing; maps made later keep a random seed against hash
// flooding.

package runtime

// agentwasmInitDone is set once every package initializer has run.
var agentwasmInitDone bool

// hashmapInitSeed is the seed of a new map: 0 until the initializers are
// done, fastrand's after.
func hashmapInitSeed() uint32 {
	if !agentwasmInitDone {
		return 0
	}
	return fastrand()
}
