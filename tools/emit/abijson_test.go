package emit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/parser"
)

// decodeABI parses --emit=abi-json output strictly: an unknown field is an
// error, so the Go types and the document stay one description.
func decodeABI(t *testing.T, out string) ABIDoc {
	t.Helper()
	var doc ABIDoc
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("the output does not decode: %v\n%s", err, out)
	}
	if doc.Version != ABIJSONVersion {
		t.Errorf("abi_version %d, want %d", doc.Version, ABIJSONVersion)
	}
	return doc
}

// TestABIJSONMatchesHeader checks, for every shared example, that the JSON
// lists the parameters the header's prototype declares, in its order.
func TestABIJSONMatchesHeader(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "examples", "*.tir"))
	if len(files) == 0 {
		t.Skip("../shared/examples not found")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, diags := parser.Parse(f, string(src))
		if len(diags) > 0 {
			t.Fatalf("%s: %v", f, diags)
		}
		out, err := ABIJSON(m)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		doc := decodeABI(t, out)
		hdr, err := CHeader(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, fn := range doc.Functions {
			var params []string
			for _, p := range append(fn.Args, fn.Results...) {
				params = append(params, p.CName)
			}
			for _, s := range fn.SizeSymbols {
				params = append(params, s.CName)
			}
			// The prototype, on one line or one parameter per line.
			_, rest, _ := strings.Cut(hdr, "\nint32_t "+fn.Symbol+"(")
			rest, _, _ = strings.Cut(rest, ")")
			var decl []string
			for _, p := range strings.Split(rest, ",") {
				w := strings.Fields(p)
				decl = append(decl, strings.TrimLeft(w[len(w)-1], "*"))
			}
			if strings.Join(decl, ",") != strings.Join(params, ",") {
				t.Errorf("%s @%s: the JSON's parameters %v, the header's %v", filepath.Base(f), fn.Name, params, decl)
			}
		}
	}
}

// TestABIJSONNames checks what the Python package relies on: tir and C
// names apart, unknown extents, the symbol of a function named like a C
// library function, and f_result_shape_data only where a result extent
// is computed from data.
func TestABIJSONNames(t *testing.T) {
	src := `tir.func @abs(%int: !tir.tensor<f32, I[0:?]>, %M: !tir.tensor<i1, I[0:N]>) -> !tir.tensor<f32, I[1:?_int_I - 1]> {
  %e = tir.shift %int [I + 1]
  tir.return %e : !tir.tensor<f32, I[1:?_int_I - 1]>
}

tir.func @positive(%x: !tir.tensor<f64, I[0:N]>) {
  %zero = tir.constant 0.0 : f64
  %m = tir.cmp gt %x, %zero
  %r = tir.compress %x, %m along I
  tir.return %r
}
`
	m, diags := parser.Parse("names.tir", src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	out, err := ABIJSON(m)
	if err != nil {
		t.Fatal(err)
	}
	doc := decodeABI(t, out)
	if len(doc.Functions) != 2 {
		t.Fatalf("%d functions", len(doc.Functions))
	}
	abs, pos := doc.Functions[0], doc.Functions[1]
	if abs.Symbol != "abs" || abs.ErrorFunction != "abs_error" || abs.ResultShapeFunction != "abs_result_shape" || abs.ResultShapeDataFunction != nil {
		t.Errorf("@abs: %+v", abs)
	}
	a := abs.Args[0]
	if a.Name != "int" || a.CName != "int_" || a.Role != "input" || a.Elem != "f32" || a.CType != "float" {
		t.Errorf("argument int: %+v", a)
	}
	if b := abs.Args[1]; b.Elem != "i1" || b.CType != "uint8_t" {
		t.Errorf("argument M: %+v", b)
	}
	r := abs.Results[0]
	want := ABIDim{Name: "I", Lo: "1", Hi: "?_int_I - 1", Size: "max(?_int_I - 2, 0)"}
	if r.Name != "result" || r.Role != "result" || len(r.Dims) != 1 || r.Dims[0] != want {
		t.Errorf("result: %+v", r)
	}
	// The symbol N meets no argument named N; %M is no symbol.
	if len(abs.SizeSymbols) != 1 || abs.SizeSymbols[0] != (ABISymbol{Name: "N", CName: "N"}) {
		t.Errorf("size symbols %+v", abs.SizeSymbols)
	}
	if len(abs.UnknownExtents) != 1 || abs.UnknownExtents[0] != (ABIUnknown{Name: "?_int_I", Arg: "int", Dim: "I", Index: 0}) {
		t.Errorf("unknown extents %+v", abs.UnknownExtents)
	}
	if pos.ResultShapeDataFunction == nil || *pos.ResultShapeDataFunction != "positive_result_shape_data" || len(pos.UnknownExtents) != 0 {
		t.Errorf("@positive: %+v", pos)
	}
	// The indented document means what the encoding means.
	compact, _ := json.Marshal(doc)
	var x, y any
	json.Unmarshal(compact, &x)
	json.Unmarshal([]byte(out), &y)
	jx, _ := json.Marshal(x)
	jy, _ := json.Marshal(y)
	if !bytes.Equal(jx, jy) {
		t.Errorf("the indented output differs from the encoding:\n%s\n%s", jx, jy)
	}
}

// TestABIJSONDocExample checks that docs/abi.md shows what --emit=abi-json
// prints for laplacian_symbolic.tir.
func TestABIJSONDocExample(t *testing.T) {
	f := filepath.Join("..", "..", "..", "shared", "examples", "laplacian_symbolic.tir")
	src, err := os.ReadFile(f)
	if err != nil {
		t.Skip("../shared/examples not found")
	}
	m, diags := parser.Parse(f, string(src))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	out, err := ABIJSON(m)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "abi.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(doc), "```json\n")
	shown, _, _ := strings.Cut(rest, "```")
	if shown != out {
		t.Errorf("docs/abi.md shows\n%s\ntc-opt --emit=abi-json prints\n%s", shown, out)
	}
}
