module github.com/agentwasm/agentwasm

go 1.26

require (
	github.com/mailru/easyjson v0.9.2
	github.com/stretchr/testify v1.12.1
	github.com/tetratelabs/wazero v1.12.0
)

require (
	github.com/josharian/intern v1.0.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.44.0 // indirect
)

tool github.com/mailru/easyjson/easyjson
