package cdriver

import (
	"fmt"
	"strings"
)

// wrongCall writes the fault injection of tools/native's RunWrong: with
// TIR_WRONG set to faults "KIND ARG DIM VALUE" separated by ';', the
// runner calls the function once per fault, each time with the
// descriptors and symbols of the run, the one fault injected and the
// results filled with 0xA5 bytes, and prints a line per call: "refused
// MESSAGE" when the function returned an error code without writing any
// result byte, "accepted" when it returned 0, "wrote N MESSAGE" when it
// refused after writing result #N. KIND is size (VALUE is added to
// sizes[DIM] of descriptor ARG), stride (strides[DIM] becomes VALUE),
// offset (VALUE is added to the offset, or to the pointer of a 0-d
// tensor), null (the aligned pointer, or the pointer of a 0-d tensor,
// becomes NULL) or symbol (VALUE is added to size symbol ARG).
func wrongCall(b *strings.Builder, k int, f Func, call string) {
	b.WriteString("  const char *wrong = getenv(\"TIR_WRONG\");\n  if (wrong) {\n")
	for i, p := range f.Params {
		if p.Rank == 0 {
			fmt.Fprintf(b, "    void *a%d_save = a%d;\n", i, i)
		} else {
			fmt.Fprintf(b, "    tird_desc%d a%d_save = a%d;\n", p.Rank, i, i)
		}
	}
	for i := range f.Syms {
		fmt.Fprintf(b, "    int64_t s%d_save = s%d;\n", i, i)
	}
	b.WriteString(`    for (const char *f = wrong; *f;) {
      char kind[16]; long long wa, wd, wv; int ok = 0, used = 0;
      if (sscanf(f, "%15s %lld %lld %lld%n", kind, &wa, &wd, &wv, &used) != 4) tird_die("bad TIR_WRONG");
      f += used;
      while (*f == ';' || *f == ' ') f++;
`)
	for i := range f.Params {
		fmt.Fprintf(b, "      a%d = a%d_save;\n", i, i)
	}
	for i := range f.Syms {
		fmt.Fprintf(b, "      s%d = s%d_save;\n", i, i)
	}
	var results []int
	for i, p := range f.Params {
		if !p.Out {
			continue
		}
		r := len(results)
		results = append(results, i)
		if p.Rank == 0 {
			fmt.Fprintf(b, "      unsigned char *w%d = (unsigned char *)a%d; size_t wn%d = %d;\n", r, i, r, p.C.Size)
		} else {
			fmt.Fprintf(b, "      unsigned char *w%d = (unsigned char *)a%d.aligned; size_t wn%d = tird_count(%d, a%d.sizes) * %d;\n", r, i, r, p.Rank, i, p.C.Size)
		}
		fmt.Fprintf(b, "      if (wn%d) memset(w%d, 0xA5, wn%d);\n", r, r, r)
	}
	b.WriteString("      if (!strcmp(kind, \"symbol\")) {\n        switch (wa) {\n")
	for i := range f.Syms {
		fmt.Fprintf(b, "        case %d: s%d += wv; ok = 1; break;\n", i, i)
	}
	b.WriteString("        }\n      } else {\n        switch (wa) {\n")
	for i, p := range f.Params {
		fmt.Fprintf(b, "        case %d:\n", i)
		if p.Rank == 0 {
			fmt.Fprintf(b, "          if (!strcmp(kind, \"offset\")) { a%d += wv; ok = 1; }\n", i)
			fmt.Fprintf(b, "          if (!strcmp(kind, \"null\")) { a%d = NULL; ok = 1; }\n", i)
		} else {
			fmt.Fprintf(b, "          if (!strcmp(kind, \"offset\")) { a%d.offset += wv; ok = 1; }\n", i)
			fmt.Fprintf(b, "          if (!strcmp(kind, \"null\")) { a%d.aligned = NULL; ok = 1; }\n", i)
			fmt.Fprintf(b, "          if (!strcmp(kind, \"size\") && wd >= 0 && wd < %d) { a%d.sizes[wd] += wv; ok = 1; }\n", p.Rank, i)
			fmt.Fprintf(b, "          if (!strcmp(kind, \"stride\") && wd >= 0 && wd < %d) { a%d.strides[wd] = wv; ok = 1; }\n", p.Rank, i)
		}
		b.WriteString("          break;\n")
	}
	b.WriteString(`        }
      }
      if (!ok) tird_die("bad TIR_WRONG");
      /* Names the fault in a crash's or a sanitizer's report. */
      fprintf(stderr, "fault: %s %lld %lld %lld\n", kind, wa, wd, wv);
`)
	fmt.Fprintf(b, "      int32_t rc = %s;\n", call)
	b.WriteString("      if (rc == 0) { printf(\"accepted\\n\"); continue; }\n      int wrote = -1;\n")
	for r := range results {
		fmt.Fprintf(b, "      for (size_t k = 0; k < wn%d && wrote < 0; k++) if (w%d[k] != 0xA5) wrote = %d;\n", r, r, r)
	}
	fmt.Fprintf(b, `      if (wrote >= 0) printf("wrote %%d %%s\n", wrote, tird_f%d_error(rc));
      else printf("refused %%s\n", tird_f%d_error(rc));
    }
    return 0;
  }
`, k, k)
}
