package emit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"tir/dialects/parser"
)

// TestExtentsJSONParses checks that --emit=extents-json is JSON that
// decodes into JSONExtents and means the same as the compact encoding
// (indentJSON only moves white space), for every shared example.
func TestExtentsJSONParses(t *testing.T) {
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
		out, err := ExtentsJSON(m, nil)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var doc JSONExtents
		dec := json.NewDecoder(bytes.NewReader([]byte(out)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("%s: the output does not decode: %v\n%s", f, err, out)
		}
		if doc.Version != ExtentsJSONVersion || len(doc.Functions) == 0 {
			t.Errorf("%s: version %d, %d functions", f, doc.Version, len(doc.Functions))
		}
		compact, _ := json.Marshal(doc)
		var a, b any
		json.Unmarshal(compact, &a)
		json.Unmarshal([]byte(out), &b)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Errorf("%s: the indented output differs from the encoding:\n%s\n%s", f, ja, jb)
		}
	}
}

// TestExtentsJSONValues checks the halo widths and their values for a
// symbolic stencil with and without bound sizes.
func TestExtentsJSONValues(t *testing.T) {
	src := `tir.func @lap(%u: !tir.tensor<f64, I[0:N], J[0:M]>) -> !tir.tensor<f64, I[2:N - 1], J[1:M - 1]> {
  %e = tir.shift %u [I + 1]
  %w = tir.shift %u [I - 2]
  %n = tir.shift %u [J + 1]
  %s = tir.shift %u [J - 1]
  %a = tir.add %e, %w
  %b = tir.add %n, %s
  %c = tir.add %a, %b
  tir.return %c : !tir.tensor<f64, I[2:N - 1], J[1:M - 1]>
}
`
	m, diags := parser.Parse("lap.tir", src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	for _, sizes := range []map[string]int64{nil, {"N": 10, "M": 7}} {
		out, err := ExtentsJSON(m, sizes)
		if err != nil {
			t.Fatal(err)
		}
		var doc JSONExtents
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		f := doc.Functions[0]
		if got := f.Symbols; len(got) != 2 || got[0] != "N" || got[1] != "M" {
			t.Errorf("symbols %v, want [N M]", got)
		}
		di := f.Args[0].Dims[0]
		if di.Kind != "halo" || di.Along != "I" || di.Below.Expr != "2" || *di.Below.Value != 2 || di.Above.Expr != "1" || *di.Above.Value != 1 {
			t.Errorf("I: %+v", di)
		}
		hi := f.Output[0].Hi
		switch {
		case sizes == nil && (hi.Expr != "N - 1" || hi.Value != nil):
			t.Errorf("output hi without sizes: %+v", hi)
		case sizes != nil && (hi.Value == nil || *hi.Value != 9):
			t.Errorf("output hi with N=10: %+v", hi)
		}
	}
	if _, err := ExtentsJSON(m, map[string]int64{"K": 1}); err == nil || err.Error() != "--size: K is not a size symbol of the module" {
		t.Errorf("unknown size: %v", err)
	}
}
