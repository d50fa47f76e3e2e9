package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	info := func(kv ...string) *debug.BuildInfo {
		b := &debug.BuildInfo{}
		for i := 0; i < len(kv); i += 2 {
			b.Settings = append(b.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return b
	}
	for _, c := range []struct {
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{nil, false, "unknown"},
		{info(), true, "unknown"},
		{info("vcs.revision", "abc123", "vcs.modified", "false"), true, "abc123"},
		{info("vcs.revision", "abc123", "vcs.modified", "true"), true, "abc123-dirty"},
	} {
		if got := fromBuildInfo(c.info, c.ok); got != c.want {
			t.Errorf("fromBuildInfo(%v) = %q, want %q", c.info, got, c.want)
		}
	}
}

func TestText(t *testing.T) {
	old := Commit
	defer func() { Commit = old }()
	Commit = "0123abcd"
	got := Text("tc-opt")
	for _, want := range []string{"tc-opt commit 0123abcd\n", "LLVM 14 IR", "MLIR 16"} {
		if !strings.Contains(got, want) {
			t.Errorf("Text lacks %q:\n%s", want, got)
		}
	}
}
