#!/usr/bin/env bash
# Installs what the TinyGo build needs (`make build-tiny`) and prints the path of the tinygo binary.
#
#   scripts/tinygo.sh          # installs what is missing, then prints e.g. ~/.cache/agentwasm/tinygo-v0.41.0/root/bin/tinygo
#
# On Debian 12: LLVM 19 (to build TinyGo and, at build time, clang-19 and wasm-ld-19), Debian's
# wasi-libc and LLVM's compiler-rt builtins for wasm32 (tinygo/*.json name them in place of the
# libraries TinyGo's release archives carry), binaryen (wasm-opt, which TinyGo's asyncify scheduler
# needs) and g++ (TinyGo's LLVM bindings have C++ parts); only the packages missing are installed.
# TinyGo itself comes from the Go module proxy as source, is built once against LLVM 19 and cached
# outside the repository, in ${XDG_CACHE_HOME:-$HOME/.cache}/agentwasm/tinygo-v0.41.0/: root/ is the
# TINYGOROOT (the module's source tree) and root/bin/tinygo the binary, which finds its root from
# its own path. A second run finds everything in place, does nothing and prints the path.
# Messages go to stderr; stdout is only the path, for the Makefile.
set -euo pipefail

TINYGO_VERSION=v0.41.0
LLVM=19
GO=${GO:-go}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/agentwasm/tinygo-$TINYGO_VERSION
bin=$cache/root/bin/tinygo

say() { echo "tinygo.sh: $*" >&2; }

packages=(llvm-$LLVM-dev libclang-$LLVM-dev clang-$LLVM lld-$LLVM wasi-libc libclang-rt-$LLVM-dev-wasm32 binaryen g++)
# missing lists the packages not installed, with one dpkg-query for all of them.
missing=()
find_missing() {
	local installed p
	installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${packages[@]}" 2>/dev/null || true)
	missing=()
	for p in "${packages[@]}"; do
		grep -q "^$p ii" <<<"$installed" || missing+=("$p")
	done
}
find_missing
# The root the module builds with: TinyGo's, with the changes to its runtime package that
# docs/SIZE.md lists (How the TinyGo build got light), as a tree of links to the built root beside the few files changed; named
# by a hash of those changes (this script and tinygo/_runtime/), so a change makes a new one. Its
# bin/tinygo is a script that runs the built binary with TINYGOROOT set to it.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
stamp=$(cat "$here/scripts/tinygo.sh" "$here"/tinygo/_runtime/*.go | sha256sum | cut -c1-12)
overlay=$cache/agentwasm-$stamp
wrapper=$overlay/bin/tinygo
if ((${#missing[@]} == 0)) && [ -x "$bin" ] && [ -x "$wrapper" ]; then
	echo "$wrapper"
	exit 0
fi

# Something to do: one run at a time (make -j starts several recipes that call this script).
mkdir -p "$(dirname "$cache")"
exec 9>"$cache.lock"
flock 9
find_missing
if ((${#missing[@]})); then
	say "installing ${missing[*]}"
	sudo=()
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null || { say "run as root, or install: apt-get install ${missing[*]}"; exit 1; }
		sudo=(sudo)
	fi
	"${sudo[@]}" apt-get update -qq >&2
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

if [ ! -x "$bin" ]; then
	command -v "$GO" >/dev/null || { say "the go command is needed to build TinyGo"; exit 1; }
	say "building TinyGo $TINYGO_VERSION from the Go module proxy into $cache (once)"
	# Outside any module, so that go mod download touches no go.mod; for this machine whatever the
	# caller's GOOS, GOARCH or GOFLAGS.
	export GOOS= GOARCH= GOFLAGS=
	dir=$(cd / && "$GO" mod download -json "github.com/tinygo-org/tinygo@$TINYGO_VERSION" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -n "$dir" ] && [ -d "$dir" ] || { say "go mod download found no source for github.com/tinygo-org/tinygo@$TINYGO_VERSION"; exit 1; }
	rm -rf "$cache"
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/root.XXXXXX")
	cp -R "$dir/." "$tmp"
	chmod -R u+w "$tmp" # the module cache is read-only
	# src/net is a git submodule, absent from the module zip; TinyGo merges it with GOROOT's net and
	# needs the directory to exist (the module imports no net package).
	mkdir -p "$tmp/src/net" "$tmp/bin"
	(cd "$tmp" && CGO_ENABLED=1 "$GO" build -tags llvm$LLVM -o bin/tinygo.partial . && mv bin/tinygo.partial bin/tinygo) >&2
	mv "$tmp" "$cache/root"
	say "$("$bin" version)"
fi

# edit FILE OLD NEW replaces the one line of FILE that is exactly OLD with NEW, or fails saying so
# (another TinyGo version: the changes must be looked at again).
edit() {
	local file=$1 old=$2 new=$3 n
	n=$(grep -cxF -- "$old" "$file" || true)
	[ "$n" = 1 ] || { say "$file: expected one line '$old', found $n; the runtime changes need a look for TinyGo $TINYGO_VERSION"; exit 1; }
	OLD=$old NEW=$new perl -0pi -e 's/^\Q$ENV{OLD}\E$/$ENV{NEW}/m' "$file"
}
if [ ! -x "$wrapper" ]; then
	say "making the module's TinyGo root $overlay"
	tmp=$(mktemp -d "$cache/overlay.XXXXXX")
	cp -as "$cache/root/." "$tmp/"
	rt=$tmp/src/runtime
	for f in hashmap.go scheduler_cooperative.go runtime_wasmentry.go; do
		cp --remove-destination "$(readlink -f "$rt/$f")" "$rt/$f"
	done
	# A map's seed: hashmapInitSeed (tinygo/_runtime/agentwasm_hashseed.go).
	edit "$rt/hashmap.go" $'\t\tseed:       uintptr(fastrand()),' $'\t\tseed:       uintptr(hashmapInitSeed()),'
	# The initializers are done where each entry point has run them.
	edit "$rt/scheduler_cooperative.go" $'\t\tinitAll()' $'\t\tinitAll()\n\t\tagentwasmInitDone = true'
	edit "$rt/runtime_wasmentry.go" $'\t\t\tinitAll()' $'\t\t\tinitAll()\n\t\t\tagentwasmInitDone = true'
	edit "$rt/runtime_wasmentry.go" $'\t\tinitAll()' $'\t\tinitAll()\n\t\tagentwasmInitDone = true'
	cp "$here"/tinygo/_runtime/*.go "$rt/"
	rm "$tmp/bin/tinygo"
	printf '#!/bin/sh\n# TinyGo with the module'"'"'s root (scripts/tinygo.sh).\nTINYGOROOT=%s exec %s "$@"\n' "$overlay" "$bin" >"$tmp/bin/tinygo"
	chmod +x "$tmp/bin/tinygo"
	mv "$tmp" "$overlay"
fi
echo "$wrapper"
