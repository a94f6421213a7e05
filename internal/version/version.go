// Package version holds the module's release version, the one figure that
// runtime.version(), `agentwasm --version`, the npm package (scripts/package.mjs
// reads it from this file) and the CHANGELOG share.
package version

// Version is the module's release version.
const Version = "0.1.0"
