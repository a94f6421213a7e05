# agentwasm — build, run, test and measure.
#   make check        THE EVERYDAY COMMAND (under two minutes warm on two cores, no dist/ needed): gofmt,
#                     go vet and staticcheck for the native, js/wasm and wasip1/wasm builds, go test -short ./...
#   make run          build what is needed and start `agentwasm dev` (the demo page, a scripted
#                     model, a demo MCP server) on ADDR [127.0.0.1:8080]; it prints the URL
#                     (UPSTREAM=, MODEL=: a real model; ALLOW_ORIGIN=: an app on another origin; DIRECT=1: the
#                     page talks to an OpenAI-compatible endpoint directly; DIRECT_URL=, MODEL=: that endpoint)
#   make build        dist/: the js modules of both toolchains (TinyGo's, the default, and Go's; full and
#                     session-only), Go's wasip1 module, both wasm_exec scripts and the loader (minified, each
#                     with a source map: scripts/minify.mjs, esbuild from web/node_modules) and its types;
#                     scripts/tinygo.sh installs TinyGo and what it needs first (once)
#   make build-tiny   dist/: TinyGo's modules (agentwasm.tiny.wasm, agentwasm-session.tiny.wasm,
#                     agentwasm-wasip1.tiny.wasm) and wasm_exec.tiny.js
#   make test         everything: gofmt, vet, staticcheck, the size budgets and page sets, then side by side
#                     go test -race ./..., the web suites (node --test web/test, tsc on the types and on the
#                     docs' snippets, the browser tests) and the TinyGo suites (the wazero suite and the Node
#                     suite against TinyGo's modules), then packagetest (the npm package carries both builds)
#   make test-tiny    the TinyGo suites alone, with TinyGo's size budgets and page sets
#   make fmt, vet, staticcheck, gotest-short, gotest, nodetest, typecheck, browsertest, websuites, sizecheck,
#        sizecheck-tiny
#                     one step of the above (websuites: nodetest, typecheck and browsertest; sizecheck: every
#                     js module's budget and every page set, TinyGo's held to the download goals; sizecheck-tiny:
#                     TinyGo's alone; tinysuites: the wazero and Node suites against TinyGo's modules)
#   make size         raw, gzip and brotli bytes of the modules (Go's full and session-only js modules, Go's
#                     wasip1 module, TinyGo's three, so it needs TinyGo), checked against the budgets, and the
#                     page sets (what a page downloads: loader + wasm_exec + module, brotli) against the
#                     download goals; writes docs/SIZE.md's tables
#   make size-opt     the js modules' raw and brotli bytes at each wasm-opt level and inlining choice (the
#                     choice of flags; needs TinyGo and wasm-opt); writes docs/SIZE.md's other table
#   make package      dist/package/: the npm package (npm pack works there, offline); needs TinyGo
#   make packagetest  the package packed, installed and used from Node, and a fresh app built with esbuild and
#                     Vite (build and dev server) completing a turn in Chromium
#   make generate     regenerate the JSON codecs of internal/wire and session (*_easyjson.go): the easyjson
#                     generator, then the one rewrite step, internal/wire/internal/codecgen
#   make bench        Go and Node benchmarks, of the Go and the TinyGo builds (needs TinyGo); writes BENCHMARKS.md
#   make conformance  the official MCP conformance suite (CONFORMANCE_RUN names its runner): conformance-client,
#                     the client scenarios against cmd/mcp-conformance-client, then conformance-server, the server
#                     scenarios (both eras) against cmd/mcp-conformance-server
#   make clean        remove dist/
#
# The toolchain is the one go.mod names (its toolchain line); .ci/run refuses another.

GO        ?= go
NODE      ?= node
# node --test runs this many test files at once (its default is one fewer than the cores: one file
# at a time on two). The files mostly wait on timers, streams and child processes, so they overlap.
# The spec reporter also when the output is not a terminal (make test's --output-sync): a line a test.
NODE_TEST_FLAGS ?= --test-concurrency=4 --test-reporter=spec
GOROOT    := $(shell $(GO) env GOROOT)
LDFLAGS   := -s -w
GOFLAGS_W := -trimpath -ldflags="$(LDFLAGS)"
GO_SRC    := $(shell find . -name '*.go' -not -path './dist/*' -not -path './web/node_modules/*') go.mod go.sum

.PHONY: build run check test websuites fmt vet staticcheck gotest-short sizecheck size-opt gotest nodetest typecheck browsertest size \
	generate bench clean package packagetest build-tiny test-tiny tinysuites sizecheck-tiny

ADDR ?= 127.0.0.1:8080
# make run UPSTREAM=http://127.0.0.1:11434 MODEL=qwen3 forwards chats to an OpenAI-compatible server
# (key from AGENTWASM_API_KEY or OPENAI_API_KEY).
# make run ALLOW_ORIGIN=http://127.0.0.1:5173 lets the pages of an app on that origin call /api (CORS;
# several origins separated by spaces), as --allow-origin does (docs/DEV.md, An app on its own origin).
# make run DIRECT=1 makes the demo page talk to the dev server's OpenAI-compatible endpoint (/openai/v1: the
# scripted model, or with UPSTREAM= a pass-through that adds the key) directly instead of the Studio AI proxy;
# make run DIRECT_URL=http://127.0.0.1:11434/v1 MODEL=llama3.2 makes it call that endpoint itself, with no key
# (the endpoint must allow the page's origin: docs/MODELS.md), as --direct and --direct-url do.
# ARGS passes more flags to agentwasm dev, e.g. for a non-loopback ADDR the hosts browsers use:
# ADDR=0.0.0.0:8080 ARGS='--allow-host studio.lan'. ARGS=--trace prints a line per MCP request's server
# span on stdout (its trace id, and the caller's span as its parent: docs/DEV.md).
UPSTREAM     ?=
MODEL        ?=
ALLOW_ORIGIN ?=
DIRECT       ?=
DIRECT_URL   ?=
ARGS         ?=

run: build dist/agentwasm dist/agentwasm.wasm.br
	dist/agentwasm dev --addr $(ADDR) $(if $(UPSTREAM),--upstream $(UPSTREAM)) $(if $(MODEL),--model $(MODEL)) \
		$(foreach o,$(ALLOW_ORIGIN),--allow-origin $(o)) $(if $(filter-out 0 no false,$(DIRECT)),--direct) $(if $(DIRECT_URL),--direct-url $(DIRECT_URL)) $(ARGS)

# The developer binary (native): agentwasm dev, agentwasm chat.
dist/agentwasm: $(GO_SRC)
	@mkdir -p dist
	$(GO) build -o $@ ./cmd/agentwasm

# Precompressed twins of what the page downloads, served by agentwasm dev to
# browsers that accept brotli or gzip.
dist/agentwasm.wasm.br: dist/agentwasm.wasm dist/agentwasm.tiny.wasm dist/agentwasm.mjs dist/agentwasm-trace.mjs dist/wasm_exec.js \
	dist/wasm_exec.tiny.js scripts/compress.mjs
	$(NODE) scripts/compress.mjs dist/agentwasm.wasm dist/agentwasm.tiny.wasm dist/agentwasm.mjs dist/agentwasm-trace.mjs dist/wasm_exec.js \
		dist/wasm_exec.tiny.js

# TinyGo's js modules are the loader's default (docs/SIZE.md, Which build to load), so make build
# makes them too.
build: dist/agentwasm.wasm dist/agentwasm-session.wasm dist/agentwasm-wasip1.wasm dist/wasm_exec.js dist/agentwasm.mjs \
	dist/agentwasm-trace.mjs dist/agentwasm.d.ts dist/agentwasm.d.mts dist/agentwasm.tiny.wasm dist/agentwasm-session.tiny.wasm dist/wasm_exec.tiny.js

# The Go toolchain's js modules: the full one (session + port) and the session-only one
# (-tags agentwasm_sessiononly: no serve, no portkit; createPort answers port_unavailable).
# They do not go through wasm-opt: every level makes the packed Go module's brotli download larger,
# though the raw bytes smaller (`make size-opt` measures each level on this revision and writes the
# table into docs/SIZE.md). GCFLAGS_JS: inlining off (-l) except
# in the runtime and syscall/js: most of what -l saves in brotli bytes, without the slower events
# that turning it off in the runtime costs (docs/SIZE.md; that table has both ends, Go's default
# and -l everywhere).
GCFLAGS_JS ?= -gcflags=all=-l -gcflags=runtime= -gcflags=syscall/js=
GOFLAGS_JS := $(GOFLAGS_W) $(GCFLAGS_JS)

# After the linker, cmd/wasmpack rewrites each js module: one data segment where the linker wrote
# tens of thousands (a smaller brotli download); with PACK_FLAGS's -drop-lines, no file and line
# tables, so a stack trace names functions but prints ?:0 for their places. `make build
# PACK_FLAGS=` does the merge alone. The linker's own output stays beside it as *.linked.wasm
# (docs/SIZE.md has each step).
PACK_FLAGS ?= -drop-lines

dist/agentwasm.wasm: $(GO_SRC) dist/wasmpack
	@mkdir -p dist
	GOOS=js GOARCH=wasm $(GO) build $(GOFLAGS_JS) -o dist/agentwasm.linked.wasm ./wasm/js
	dist/wasmpack $(PACK_FLAGS) -o $@ dist/agentwasm.linked.wasm

dist/agentwasm-session.wasm: $(GO_SRC) dist/wasmpack
	@mkdir -p dist
	GOOS=js GOARCH=wasm $(GO) build $(GOFLAGS_JS) -tags agentwasm_sessiononly -o dist/agentwasm-session.linked.wasm ./wasm/js
	dist/wasmpack $(PACK_FLAGS) -o $@ dist/agentwasm-session.linked.wasm

# The session-only module without the direct transport to OpenAI-compatible endpoints
# (-tags agentwasm_nodirect): `make size` measures it to state what that transport costs.
dist/agentwasm-session-nodirect.wasm: $(GO_SRC) dist/wasmpack
	@mkdir -p dist
	GOOS=js GOARCH=wasm $(GO) build $(GOFLAGS_JS) -tags agentwasm_sessiononly,agentwasm_nodirect -o dist/agentwasm-session-nodirect.linked.wasm ./wasm/js
	dist/wasmpack $(PACK_FLAGS) -o $@ dist/agentwasm-session-nodirect.linked.wasm

dist/wasmpack: $(GO_SRC)
	@mkdir -p dist
	$(GO) build -o $@ ./cmd/wasmpack

# wasm-opt (Debian's binaryen; scripts/tinygo.sh installs it with the TinyGo build's tools) for the TinyGo js module, where -Oz does make
# the brotli download smaller.
WASM_OPT  ?= $(shell command -v wasm-opt 2>/dev/null)
WASM_OPT_FLAGS := -Oz --enable-bulk-memory --enable-sign-ext --enable-nontrapping-float-to-int

# The wasip1 module keeps its line tables (tests and `agentwasm chat --wasm` print file:line in a
# stack trace); wasmpack merges its data segments.
dist/agentwasm-wasip1.wasm: $(GO_SRC) dist/wasmpack
	@mkdir -p dist
	GOOS=wasip1 GOARCH=wasm $(GO) build -buildmode=c-shared $(GOFLAGS_W) -o dist/agentwasm-wasip1.linked.wasm ./wasm/wasip1
	dist/wasmpack -o $@ dist/agentwasm-wasip1.linked.wasm

# The scripts a page downloads beside the module ship minified, each with its source map (*.map,
# the readable source inside): scripts/minify.mjs, through esbuild (web/node_modules; the rules
# run npm ci in web/ when it is missing). The readable sources stay where they are: the loader in
# web/, the wasm_exec scripts in their toolchains (Go's: GOROOT/lib/wasm, TinyGo's:
# TINYGOROOT/targets), whose copyright lines head the minified files.
MINIFY  := $(NODE) scripts/minify.mjs
ESBUILD := web/node_modules/esbuild/package.json

# Only when web/node_modules lacks esbuild (an order-only prerequisite of the minified files):
# unlike web/node_modules/.package-lock.json, it never runs again because package.json is newer.
$(ESBUILD):
	cd web && npm ci --no-audit --no-fund

dist/wasm_exec.js: $(GOROOT)/lib/wasm/wasm_exec.js scripts/minify.mjs | $(ESBUILD)
	@mkdir -p dist
	$(MINIFY) --source-name go/lib/wasm/wasm_exec.js $< $@

# The TinyGo build (docs/SIZE.md, The TinyGo build): the same two entry points built by TinyGo v0.41.0
# against Debian's LLVM 19, with tinygo/js.json and tinygo/wasip1.json, which name Debian's
# wasi-libc and compiler-rt. scripts/tinygo.sh installs what is missing and builds TinyGo once
# (cached outside the repository), then prints the binary; TINYGO=/path/to/tinygo skips it.
# -panic=trap: TinyGo cannot recover a panic on wasm anyway, and the code that prints one would
# take the js module past its 370 KB brotli budget. TinyGo runs wasm-opt's asyncify pass through
# tinygo/wasm-opt (which tells it that no import pauses a goroutine); the js module then goes
# through wasm-opt -Oz like Go's.
TINYGO       ?=
TINYGO_BIN    = $(or $(TINYGO),$$(scripts/tinygo.sh))
TINYGO_FLAGS := -opt=z -no-debug -panic=trap
TINY_DEPS    := $(GO_SRC) scripts/tinygo.sh

build-tiny: dist/agentwasm.tiny.wasm dist/agentwasm-session.tiny.wasm dist/agentwasm-wasip1.tiny.wasm dist/wasm_exec.tiny.js

dist/agentwasm.tiny.wasm: $(TINY_DEPS) tinygo/js.json tinygo/wasm-opt
	@mkdir -p dist
	tinygo=$(TINYGO_BIN) && WASMOPT=$(CURDIR)/tinygo/wasm-opt $$tinygo build -target=tinygo/js.json $(TINYGO_FLAGS) -o dist/agentwasm.tiny.raw.wasm ./wasm/js
	$(or $(WASM_OPT),wasm-opt) $(WASM_OPT_FLAGS) dist/agentwasm.tiny.raw.wasm -o $@

# The session-only js module by TinyGo (-tags agentwasm_sessiononly, as Go's agentwasm-session.wasm;
# load({variant: 'tiny-session'})), with the same flags and wasm-opt step.
dist/agentwasm-session.tiny.wasm: $(TINY_DEPS) tinygo/js.json tinygo/wasm-opt
	@mkdir -p dist
	tinygo=$(TINYGO_BIN) && WASMOPT=$(CURDIR)/tinygo/wasm-opt $$tinygo build -target=tinygo/js.json $(TINYGO_FLAGS) -tags agentwasm_sessiononly -o dist/agentwasm-session.tiny.raw.wasm ./wasm/js
	$(or $(WASM_OPT),wasm-opt) $(WASM_OPT_FLAGS) dist/agentwasm-session.tiny.raw.wasm -o $@

# The reactor the wazero harness needs: _initialize, agentwasm_alloc, agentwasm_free, agentwasm_call.
dist/agentwasm-wasip1.tiny.wasm: $(TINY_DEPS) tinygo/wasip1.json
	@mkdir -p dist
	tinygo=$(TINYGO_BIN) && $$tinygo build -target=tinygo/wasip1.json -buildmode=c-shared $(TINYGO_FLAGS) -o $@ ./wasm/wasip1

dist/wasm_exec.tiny.js: scripts/tinygo.sh scripts/minify.mjs | $(ESBUILD)
	@mkdir -p dist
	tinygo=$(TINYGO_BIN) && $(MINIFY) --source-name tinygo/targets/wasm_exec.js "$$($$tinygo env TINYGOROOT)/targets/wasm_exec.js" $@

# The TinyGo suites: the wazero suite against TinyGo's wasip1 module (AGENTWASM_WASIP1_TOOLCHAIN
# tells the tests which build they meet: the ones that need recover skip, saying why) and the Node
# suite against TinyGo's js modules (web/testing/helpers.mjs loads them with AGENTWASM_VARIANT=tiny).
# make test runs them beside the others; make test-tiny alone, with TinyGo's size budgets.
tinysuites: build build-tiny dist/agentwasm
	AGENTWASM_WASIP1=$(CURDIR)/dist/agentwasm-wasip1.tiny.wasm AGENTWASM_WASIP1_TOOLCHAIN=tinygo $(GO) test -count=1 ./wazerotest/
	AGENTWASM_VARIANT=tiny $(NODE) --test $(NODE_TEST_FLAGS) web/test

test-tiny: export AGENTWASM_REQUIRE_TINY = 1
test-tiny: sizecheck-tiny tinysuites

# The page sets: what a page downloads for each js variant, the loader + the runtime script
# (wasm_exec) + the module, each brotli-compressed on its own as a server sends it. Each is
# reported against the download goal of its kind (330,000 B with the port, 250,000 B session-only).
# TinyGo's two, the default's, meet the goals and are held to them (sizecheck-tiny, which sizecheck
# runs, fails a set over its goal); the Go builds' two are reported against them (their modules have
# their own --budget, SIZE_BUDGETS below). make size writes all four into docs/SIZE.md's page-set
# table.
PAGESET_GOAL_FULL    := 330000
PAGESET_GOAL_SESSION := 250000
PAGESETS           := --pageset go=dist/agentwasm.mjs+dist/wasm_exec.js+dist/agentwasm.wasm \
	--pageset session=dist/agentwasm.mjs+dist/wasm_exec.js+dist/agentwasm-session.wasm
PAGESET_GOALS      := --goal go=$(PAGESET_GOAL_FULL) --goal session=$(PAGESET_GOAL_SESSION)
PAGESET_FILES      := dist/agentwasm.mjs dist/wasm_exec.js dist/agentwasm.wasm dist/agentwasm-session.wasm
PAGESETS_TINY      := --pageset tiny=dist/agentwasm.mjs+dist/wasm_exec.tiny.js+dist/agentwasm.tiny.wasm:$(PAGESET_GOAL_FULL) \
	--pageset tiny-session=dist/agentwasm.mjs+dist/wasm_exec.tiny.js+dist/agentwasm-session.tiny.wasm:$(PAGESET_GOAL_SESSION)
PAGESET_GOALS_TINY := --goal tiny=$(PAGESET_GOAL_FULL) --goal tiny-session=$(PAGESET_GOAL_SESSION)
PAGESET_FILES_TINY := dist/agentwasm.mjs dist/wasm_exec.tiny.js dist/agentwasm.tiny.wasm dist/agentwasm-session.tiny.wasm

# The TinyGo js modules' budgets (1.1 MB raw, 320 KB brotli; session-only 700 KB, 205 KB) and
# TinyGo's page sets held to their goals.
sizecheck-tiny: dist/agentwasm.tiny.wasm $(PAGESET_FILES_TINY)
	@$(NODE) scripts/size.mjs --budget dist/agentwasm.tiny.wasm:1100000:320000 --budget dist/agentwasm-session.tiny.wasm:700000:205000 \
		$(PAGESETS_TINY) $(PAGESET_GOALS_TINY) dist/agentwasm.tiny.wasm dist/agentwasm-session.tiny.wasm

dist/agentwasm.mjs: web/agentwasm.mjs scripts/minify.mjs | $(ESBUILD)
	@mkdir -p dist
	$(MINIFY) $< $@

# The trace module the loader imports only when a session or a port is given a tracer: beside
# the loader, minified with its map, never part of a page set.
dist/agentwasm-trace.mjs: web/agentwasm-trace.mjs scripts/minify.mjs | $(ESBUILD)
	@mkdir -p dist
	$(MINIFY) $< $@

dist/agentwasm.d.ts: web/agentwasm.d.ts
	@mkdir -p dist
	cp $< $@

dist/agentwasm.d.mts: web/agentwasm.d.mts
	@mkdir -p dist
	cp $< $@

# The everyday loop: static checks, then the short Go suite (go test's cache skips the packages
# whose sources and inputs did not change).
check: fmt vet staticcheck gotest-short

gotest-short:
	$(GO) test -short ./...

# Everything, against both toolchains' builds (AGENTWASM_REQUIRE_TINY=1: a test that needs the
# TinyGo build fails rather than skips without it). After the static checks and the size budgets,
# the Go suite, the web suites (Node, the types, Chromium: the demo and the browser tests load the
# default, TinyGo's build, and the side-by-side tests both) and the TinyGo suites run side by side:
# the Go suite keeps the cores busy, the web suites mostly wait on timers, streams and the browser.
# --output-sync prints each step's output whole when it ends. Then the npm package.
test: export AGENTWASM_REQUIRE_TINY = 1
test: fmt vet staticcheck sizecheck
	$(MAKE) --no-print-directory -j2 --output-sync=target gotest websuites tinysuites
	$(MAKE) --no-print-directory packagetest

websuites: nodetest typecheck browsertest

fmt:
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }

# The packages each wasm build links (the dev binary's servers under cmd/ build natively only);
# vet and staticcheck both go over them.
WASM_PKGS := ./bridge/... ./session/... ./serve/... ./portkit/... ./internal/... ./wasm/internal/...

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet $(WASM_PKGS) ./wasm/js/...
	GOOS=js GOARCH=wasm $(GO) vet -tags agentwasm_sessiononly ./wasm/internal/command/... ./wasm/js/...
	GOOS=wasip1 GOARCH=wasm $(GO) vet $(WASM_PKGS) ./wasm/wasip1/...
	@for t in js wasip1; do \
		if GOOS=$$t GOARCH=wasm $(GO) list -deps ./wasm/$$t/... | grep -qx net/http; then \
			echo "the $$t build imports net/http; find the importer with go list -deps"; exit 1; fi; \
	done

# staticcheck, pinned as a tool in go.mod, over the same builds as vet. The binary is built for this
# machine (go tool -n builds it and prints its path); GOOS/GOARCH then pick the build it checks.
# Every build is checked, then the target fails if any had a finding.
staticcheck:
	@sc=$$($(GO) tool -n staticcheck) || exit 1; fail=0; \
	for build in "native ./..." "js $(WASM_PKGS) ./wasm/js/..." \
		"js -tags agentwasm_sessiononly ./wasm/internal/command/... ./wasm/js/..." "wasip1 $(WASM_PKGS) ./wasm/wasip1/..."; do \
		set -- $$build; goos=$$1; shift; echo "staticcheck ($$goos) $$*"; \
		if [ $$goos = native ]; then $$sc "$$@" || fail=1; else GOOS=$$goos GOARCH=wasm $$sc "$$@" || fail=1; fi; \
	done; exit $$fail

# The native suite runs with the race detector (it needs cgo: gcc and libc6-dev); the one test
# that skips under it (wazero compiling the module from nothing, some 20 s there) runs without.
gotest: dist/agentwasm-wasip1.wasm
	AGENTWASM_WASIP1=$(CURDIR)/dist/agentwasm-wasip1.wasm $(GO) test -race -count=1 ./...
	$(GO) test -race -count=1 -tags agentwasm_sessiononly -run SessionOnly ./wasm/internal/command/
	$(GO) test -race -count=1 -tags agentwasm_nodirect -run NoDirectTransport ./session/
	AGENTWASM_WASIP1=$(CURDIR)/dist/agentwasm-wasip1.wasm $(GO) test -count=1 -run '^TestCompilationCacheOnDisk$$' ./wazerotest/

# The Node suite against the Go build. The tests of the Go and TinyGo builds side by side skip when
# dist/ lacks the TinyGo build (make test-tiny runs them). direct_scenario.test.mjs starts agentwasm dev.
nodetest: build dist/agentwasm
	$(NODE) --test $(NODE_TEST_FLAGS) web/test

# The TypeScript declarations, checked against web/types/usage.ts and web/types/trace.ts (the OpenTelemetry SDK's tracer is a Tracer); then every js and ts snippet of
# README.md, web/package/README.md, docs/PORT.md, docs/DEV.md, docs/MODELS.md, docs/SNAPSHOTS.md and docs/TRACING.md (and the declarations' @example
# blocks) under tsc --strict, one tsc run over them all (web/types/snippets.test.mjs).
typecheck: web/node_modules/.package-lock.json
	cd web && npx tsc -p types
	$(NODE) --test $(NODE_TEST_FLAGS) web/types

# Headless Chromium (Debian's chromium) through playwright-core. Skipped when
# /usr/bin/chromium is missing, unless AGENTWASM_REQUIRE_BROWSER=1 (CI sets it).
browsertest: build dist/agentwasm dist/agentwasm.wasm.br web/node_modules/.package-lock.json
	$(NODE) --test $(NODE_TEST_FLAGS) web/browser

# dist/package/: the npm package `agentwasm` — the loader, its types, both modules, wasm_exec.js,
# web/package/README.md — and its package.json, whose version scripts/package.mjs reads from
# internal/version (the module's Version), so the two cannot drift.
package: build build-tiny
	tinygo=$(TINYGO_BIN) && TINYGOROOT="$$($$tinygo env TINYGOROOT)" GO=$(GO) $(NODE) scripts/package.mjs

# The package: npm pack, npm install of the tarball (offline) and a scripted turn in Node, its
# agentwasm-assets command; then a page importing it, bundled with esbuild, in headless Chromium, and
# a fresh app built with esbuild (plus npx agentwasm-assets), vite build and Vite's dev server, each
# completing a turn with agentwasm dev (skipped like browsertest).
packagetest: package dist/agentwasm web/node_modules/.package-lock.json
	$(NODE) --test $(NODE_TEST_FLAGS) web/package

web/node_modules/.package-lock.json: web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund

# The js modules' budgets (docs/SIZE.md says why):
# the full build 5.7 MB raw and 800,000 B brotli, the session-only build 4.6 MB raw and 650,000 B:
# the brotli figures are the download goals.
SIZE_BUDGETS := --budget dist/agentwasm.wasm:6000000:850000 --budget dist/agentwasm-session.wasm:4900000:690000
SIZE_MODULES := dist/agentwasm.wasm dist/agentwasm-session.wasm dist/agentwasm-wasip1.wasm

size: $(SIZE_MODULES) dist/agentwasm.tiny.wasm dist/agentwasm-session.tiny.wasm dist/agentwasm-wasip1.tiny.wasm \
	dist/agentwasm-session-nodirect.wasm $(PAGESET_FILES) $(PAGESET_FILES_TINY)
	@$(NODE) scripts/size.mjs --doc docs/SIZE.md --doc README.md \
		--cost direct=dist/agentwasm-session.wasm:dist/agentwasm-session-nodirect.wasm $(SIZE_BUDGETS) \
		$(PAGESETS) $(PAGESETS_TINY) $(PAGESET_GOALS) $(PAGESET_GOALS_TINY) $(SIZE_MODULES) \
		dist/agentwasm-session-nodirect.wasm dist/agentwasm.tiny.wasm dist/agentwasm-session.tiny.wasm dist/agentwasm-wasip1.tiny.wasm

# The Go builds' budgets and page sets, then TinyGo's (the default page sets, held to the goals).
sizecheck: $(SIZE_MODULES) $(PAGESET_FILES) sizecheck-tiny
	@$(NODE) scripts/size.mjs $(SIZE_BUDGETS) $(PAGESETS) $(PAGESET_GOALS) $(SIZE_MODULES)

# The choice of flags for the js modules: each as its compiler wrote it and at each wasm-opt
# level, and the full Go build also with Go's default inlining and with inlining off everywhere.
size-opt: dist/agentwasm.wasm dist/agentwasm-session.wasm dist/agentwasm.tiny.wasm dist/wasmpack
	GOOS=js GOARCH=wasm $(GO) build $(GOFLAGS_W) -o dist/agentwasm.inline.linked.wasm ./wasm/js
	GOOS=js GOARCH=wasm $(GO) build $(GOFLAGS_W) -gcflags=all=-l -o dist/agentwasm.noinline.linked.wasm ./wasm/js
	dist/wasmpack $(PACK_FLAGS) -o dist/agentwasm.inline.wasm dist/agentwasm.inline.linked.wasm
	dist/wasmpack $(PACK_FLAGS) -o dist/agentwasm.noinline.wasm dist/agentwasm.noinline.linked.wasm
	dist/wasmpack -o dist/agentwasm.lines.wasm dist/agentwasm.linked.wasm
	@$(NODE) scripts/wasmopt.mjs --doc docs/SIZE.md 'Go, full (as `make build`)=dist/agentwasm.wasm' \
		'Go, full, as the linker wrote it (no `wasmpack`)=dist/agentwasm.linked.wasm' \
		'Go, full, `wasmpack` merging segments only=dist/agentwasm.lines.wasm' \
		'Go, full, inlining everywhere=dist/agentwasm.inline.wasm' \
		'Go, full, inlining off everywhere=dist/agentwasm.noinline.wasm' \
		'Go, session-only=dist/agentwasm-session.wasm' \
		'Go, session-only, as the linker wrote it=dist/agentwasm-session.linked.wasm' \
		'TinyGo=dist/agentwasm.tiny.raw.wasm'

generate:
	$(GO) generate ./internal/wire/ ./session/

bench: build build-tiny
	AGENTWASM_WASIP1=$(CURDIR)/dist/agentwasm-wasip1.wasm AGENTWASM_WASIP1_TINY=$(CURDIR)/dist/agentwasm-wasip1.tiny.wasm \
		GO=$(GO) $(NODE) scripts/bench.mjs

clean:
	rm -rf dist

# The official MCP conformance suite. CONFORMANCE_RUN is the command that runs
# the suite's CLI (@modelcontextprotocol/conformance): on Node 22 or newer,
# CONFORMANCE_RUN='npx --yes @modelcontextprotocol/conformance'; on Node 20, a
# script of your own that supplies fs.globSync first. Each client scenario runs
# against dist/mcp-conformance-client: prints each scenario's result lines, the
# whole log of a failing one, and fails if any fails. Then the server scenarios
# of each requirement set (the stateless 2026-07-28 era and the 2025-11-25
# session era) run against dist/mcp-conformance-server (serve/mcpserver's
# dispatcher and HTTP handler over the suite's tool set); the required
# scenarios below must pass. Not part of make test.
CONFORMANCE_RUN       ?=
CONFORMANCE_SCENARIOS ?= initialize tools_call sse-retry request-metadata
CONFORMANCE_SERVER_REQUIREMENTS ?= 2026-07-28 2025-11-25
CONFORMANCE_SERVER_SCENARIOS ?= server-initialize server-session-lifecycle server-stateless tools-list \
	tools-call-simple-text tools-call-error tools-call-mixed-content tools-call-with-progress json-schema-2020-12 \
	dns-rebinding-protection caching http-header-validation http-custom-header-server-validation ping

.PHONY: conformance conformance-run conformance-client conformance-server
conformance: conformance-client conformance-server

conformance-run:
	@test -n "$(CONFORMANCE_RUN)" || { echo "make conformance: set CONFORMANCE_RUN to the command that runs the MCP conformance suite's CLI, e.g. CONFORMANCE_RUN='npx --yes @modelcontextprotocol/conformance' (Node 22 or newer)"; exit 1; }

conformance-server: conformance-run
	@mkdir -p dist
	$(GO) build -o dist/mcp-conformance-server ./cmd/mcp-conformance-server
	@cmd/mcp-conformance-server/conformance.sh "$(CURDIR)/dist/mcp-conformance-server" "$(CONFORMANCE_RUN)" \
		"$(CONFORMANCE_SERVER_REQUIREMENTS)" "$(CONFORMANCE_SERVER_SCENARIOS)"

conformance-client: conformance-run
	@mkdir -p dist
	$(GO) build -o dist/mcp-conformance-client ./cmd/mcp-conformance-client
	@failed=""; for s in $(CONFORMANCE_SCENARIOS); do \
		if out=$$($(CONFORMANCE_RUN) client --command "$(CURDIR)/dist/mcp-conformance-client" --scenario $$s 2>&1); then \
			printf '%s: ' "$$s"; printf '%s\n' "$$out" | grep -E '^Passed: ' | tr -d '\n'; echo " - PASSED"; \
		else \
			printf '%s\n' "$$out" | grep -v 'npm warn'; echo "$$s: FAILED"; failed="$$failed $$s"; \
		fi; \
	done; \
	if [ -n "$$failed" ]; then echo "conformance: failed:$$failed"; exit 1; fi; \
	echo "conformance: all of $(CONFORMANCE_SCENARIOS) passed"
