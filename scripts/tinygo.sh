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
if ((${#missing[@]} == 0)) && [ -x "$bin" ]; then
	echo "$bin"
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
echo "$bin"
