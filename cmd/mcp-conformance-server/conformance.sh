#!/usr/bin/env bash
# Runs the official MCP conformance suite's server scenarios against the
# fixture server (make conformance calls it):
#   conformance.sh SERVER_BINARY RUN_SCRIPT "REQUIREMENT SETS" "REQUIRED SCENARIOS"
# It starts the server on a free loopback port, runs `RUN_SCRIPT server
# --requirements R` for each set, prints the suite's summary line of every
# required scenario, and fails when a required scenario fails or never ran.
# Scenarios outside the required list are reported by the suite's own log
# only (the fixture offers no prompts, resources, sampling or tasks).
set -uo pipefail
server=$1 run=$2 sets=$3 required=$4
log=$(mktemp) out=$(mktemp)
"$server" -addr 127.0.0.1:0 >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -f "$log" "$out"' EXIT
url=""
for _ in $(seq 1 100); do
	url=$(sed -n 's/^listening on //p' "$log")
	[ -n "$url" ] && break
	sleep 0.05
done
if [ -z "$url" ]; then
	echo "mcp-conformance-server did not start:"; cat "$log"; exit 1
fi
declare -A seen failed
for r in $sets; do
	"$run" server --url "$url" --requirements "$r" >"$out" 2>&1
	summary=$(sed -n '/=== SUMMARY ===/,$p' "$out")
	if [ -z "$summary" ]; then
		grep -v 'npm warn' "$out"; echo "server $r: the suite printed no summary"; exit 1
	fi
	for s in $required; do
		line=$(printf '%s\n' "$summary" | grep -E "^[✓✗] $s: " | head -1)
		[ -z "$line" ] && continue
		seen[$s]=1
		echo "server $r: $line"
		case $line in ✗*) failed[$s]=1 ;; esac
	done
	printf '%s\n' "$summary" | grep -E '^Total: ' | sed "s/^/server $r (all scenarios, unscored ones included): /"
done
bad=""
for s in $required; do
	if [ -z "${seen[$s]:-}" ]; then bad="$bad $s(not run)"; elif [ -n "${failed[$s]:-}" ]; then bad="$bad $s"; fi
done
if [ -n "$bad" ]; then
	echo "conformance (server): failed:$bad"; exit 1
fi
echo "conformance (server): all of $required passed"
