// Command agentwasm is the developer binary of agentwasm.
//
//	agentwasm dev  [--addr 127.0.0.1:8080] [--upstream URL] [--model NAME] [--allow-model NAME]…
//	               [--allow-origin URL]… [--allow-host HOST[:PORT]]… [--max-concurrent N]
//	               [--web DIR] [--dist DIR] [--pace DUR]
//	agentwasm chat [--base-url URL] [--json] [--wasm] [--model NAME] [--timeout DUR] TEXT…
//	agentwasm version
//
// `dev` serves the demo Studio page and the built module, a Studio AI proxy
// (a scripted model by default; an OpenAI-compatible upstream with
// --upstream) and a demo MCP server, all on one loopback address; only its
// own pages and origins given with --allow-origin may call its /api (a
// non-loopback --addr needs --allow-host). `chat`
// runs one turn from a terminal against such a proxy, natively or (with
// --wasm) in the wasip1 module under wazero.
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `agentwasm — AI agent sessions in web pages

Usage:
  agentwasm dev  [--addr 127.0.0.1:8080] [--upstream URL] [--model NAME] [--allow-model NAME]…
                 [--allow-origin URL]… [--allow-host HOST[:PORT]]… [--max-concurrent N]
                 serve the demo page, a Studio AI proxy and a demo MCP server;
                 only its own pages and --allow-origin ones may call its /api
  agentwasm chat [--base-url URL] [--json] [--wasm] [--model NAME] [--timeout DUR] TEXT…
                 run one turn against a proxy and print it
  agentwasm version
                 print the version

Run "agentwasm dev --help" or "agentwasm chat --help" for their flags.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "dev":
		return runDev(args[1:], stdout, stderr)
	case "chat":
		return runChat(args[1:], stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "agentwasm", version)
		return 0
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "agentwasm: unknown command %q\n\n%s", args[0], usage)
	return 2
}
