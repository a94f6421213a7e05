#!/bin/sh
# Regenerates the easyjson codecs of this package (run by `go generate` and
# `make generate`), then drops the generator's import of the easyjson root
# package (it would pull net/http into the wasm builds) and its unused
# encoding/json import, points the marshalers at internal/jsonw instead of
# easyjson's jwriter (whose buffer package pulls net, about 300 KB of wasm)
# and the unmarshalers at internal/jsonr instead of easyjson's jlexer (which
# pulls fmt, encoding/json and reflect, about 400 KB of wasm).
set -eu
cd "$(dirname "$0")"
files=$(ls *.go | grep -v -e '_easyjson.go$' -e '_test.go$' -e '^doc.go$' -e '^codec.go$' -e '^object.go$' -e '^trim.go$' -e '^tables.go$')
rm -f *_easyjson.go
go tool easyjson -no_std_marshalers $files
for f in *_easyjson.go; do
	sed -i -e '/easyjson "github.com\/mailru\/easyjson"$/d' -e '/_ easyjson.Marshaler$/d' \
		-e 's#jwriter "github.com/mailru/easyjson/jwriter"#jsonw "github.com/agentwasm/agentwasm/internal/jsonw"#' \
		-e 's/\bjwriter\./jsonw./g' \
		-e '/json "encoding\/json"$/d' -e '/_ \*json.RawMessage$/d' \
		-e 's#jlexer "github.com/mailru/easyjson/jlexer"#jsonr "github.com/agentwasm/agentwasm/internal/jsonr"#' \
		-e 's/\bjlexer\./jsonr./g' "$f"
done
# Types marked //agentwasm:decode-only lose their encoder, types marked
# //agentwasm:encode-only their decoder (trim.go): the module only ever moves
# them one way, and every method left costs wasm bytes. Then each struct's
# codecs become tables of its fields, read by jsonr.Lexer.Object and written by
# jsonw.Writer.Struct (tables.go): a generated function per struct and
# direction costs kilobytes of wasm. Last, the functions left unused go.
go run trim.go tables.go
gofmt -w *_easyjson.go
