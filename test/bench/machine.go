package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// machineInfo describes the CPU, the caches and the tool versions.
func machineInfo(tools toolset) []string {
	model, procs := "unknown CPU", 0
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			switch strings.TrimSpace(k) {
			case "model name":
				if procs == 0 || model == "unknown CPU" {
					model = strings.TrimSpace(v)
				}
			case "processor":
				procs++
			}
		}
	}
	lines := []string{
		fmt.Sprintf("CPU: %s, %d logical CPUs in /proc/cpuinfo (Go sees %d)%s", model, procs, runtime.NumCPU(), caches()),
		fmt.Sprintf("%s/%s, %s, %s", runtime.GOOS, runtime.GOARCH, runtime.Version(), time.Now().UTC().Format("2006-01-02 15:04 UTC")),
	}
	var vs []string
	for _, t := range []struct{ name, path, want string }{
		{"llc", tools.llc, "LLVM version"},
		{"gcc", tools.gcc, "gcc"},
		{"mlir-opt", tools.mlirOpt, "LLVM version"},
	} {
		if t.path == "" {
			continue
		}
		out, err := exec.Command(t.path, "--version").CombinedOutput()
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, t.want) {
				vs = append(vs, fmt.Sprintf("%s: %s", t.name, strings.TrimSpace(l)))
				break
			}
		}
	}
	if len(vs) > 0 {
		lines = append(lines, "tools: "+strings.Join(vs, "; "))
	}
	if c := commit(); c != "" {
		lines = append(lines, "compiler: "+c)
	}
	return lines
}

// commit is the checkout's commit, and the directories with uncommitted
// changes to what the harness compiles (tests, goldens and docs left out):
// ours is compiled in-process from the working tree, which on a shared
// checkout holds others' work in progress.
func commit() string {
	dir := sourceDir()
	head, err := exec.Command("git", "-C", dir, "log", "-1", "--format=%h %s").Output()
	if err != nil {
		return ""
	}
	text := strings.TrimSpace(string(head))
	if len(text) > 90 {
		text = text[:90] + "..."
	}
	text = "commit " + text
	out, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=all", ":/").Output()
	if err != nil {
		return text
	}
	dirs := map[string]bool{}
	var list []string
	for _, line := range strings.Split(string(out), "\n") {
		if len(line) < 4 {
			continue
		}
		path := strings.TrimSpace(line[3:])
		source := false
		for _, ext := range []string{".go", ".c", ".h", ".py", ".tc", ".tir", "go.mod"} {
			source = source || strings.HasSuffix(path, ext)
		}
		if !source || strings.HasSuffix(path, "_test.go") || (strings.HasPrefix(path, "test/") && !strings.HasPrefix(path, "test/bench/")) {
			continue // not compiled into the tools or the harness
		}
		d := filepath.Dir(path)
		if !dirs[d] {
			dirs[d] = true
			list = append(list, d)
		}
	}
	if len(list) > 0 {
		sort.Strings(list)
		text += ", with uncommitted changes in " + strings.Join(list, ", ")
	}
	return text
}

// caches lists the data and unified caches of CPU 0 from sysfs.
func caches() string {
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu0/cache/index*")
	var parts []string
	for _, d := range dirs {
		read := func(f string) string {
			b, _ := os.ReadFile(filepath.Join(d, f))
			return strings.TrimSpace(string(b))
		}
		if read("type") == "Instruction" {
			continue
		}
		shared := ""
		if l := read("shared_cpu_list"); l != "" && l != "0" {
			shared = " shared by CPUs " + l
		}
		parts = append(parts, fmt.Sprintf("L%s %s%s", read("level"), read("size"), shared))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; per core: " + strings.Join(parts, ", ")
}

// loadAverage is the 1-minute load average, "" where there is none.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	if f := strings.Fields(string(data)); len(f) > 0 {
		return f[0]
	}
	return ""
}
