// Package version is what `tc-opt --version` and `tc-run --version` print:
// the commit the tools were built from and the versions of LLVM and MLIR
// they target.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Commit is the commit the binary was built from, set by the Makefile:
//
//	go build -ldflags "-X tir/tools/internal/version.Commit=$(git rev-parse HEAD)"
//
// (with a "-dirty" suffix when the working tree had changes). When it is
// empty, the commit Go recorded in the build information is used
// (vcs.revision, which `go build` records in a git checkout), else
// "unknown" (go test, go run, a build outside the repository).
var Commit string

// The versions the tools target: the LLVM IR they print is LLVM 14's
// (typed pointers; llc-14 reads it), and the MLIR text they read and write
// is what mlir-opt 16 prints.
const (
	LLVM = "14"
	MLIR = "16"
)

// Revision is Commit, or the build information's vcs.revision (with
// "-dirty" when vcs.modified is set), or "unknown".
func Revision() string {
	if Commit != "" {
		return Commit
	}
	return fromBuildInfo(debug.ReadBuildInfo())
}

func fromBuildInfo(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

// Text is the --version output of the named tool:
//
//	tc-opt commit 3f2a9c1e0b7d...
//	targets LLVM 14 IR (llc-14, typed pointers); MLIR 16 interop (mlir-opt 16 text)
//	built with go1.26.0 for linux/amd64
func Text(tool string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s commit %s\n", tool, Revision())
	fmt.Fprintf(&b, "targets LLVM %s IR (llc-%s, typed pointers); MLIR %s interop (reads and writes mlir-opt %s text)\n", LLVM, LLVM, MLIR, MLIR)
	fmt.Fprintf(&b, "built with %s for %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return b.String()
}
