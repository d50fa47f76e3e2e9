package passes

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Timer is a node of a wall-time report (--mlir-timing): the pass manager
// adds one child per pass and nested pipeline, tc-opt adds "Parser" and
// "Output". Every method is safe on a nil *Timer, which times nothing.
type Timer struct {
	Name    string
	Elapsed time.Duration

	children []*Timer
	byKey    map[any]*Timer
}

// NewTimer returns a root timer; its Elapsed, when set, is the report's
// total (otherwise the sum of its children).
func NewTimer(name string) *Timer { return &Timer{Name: name, byKey: map[any]*Timer{}} }

// Child returns the child timer for key, creating it with name the first
// time. Children are reported in creation order.
func (t *Timer) Child(key any, name string) *Timer {
	if t == nil {
		return nil
	}
	if c, ok := t.byKey[key]; ok {
		return c
	}
	c := NewTimer(name)
	t.byKey[key] = c
	t.children = append(t.children, c)
	return c
}

// Start starts timing; the returned function stops and accumulates.
func (t *Timer) Start() (stop func()) {
	if t == nil {
		return func() {}
	}
	begin := time.Now()
	return func() { t.Elapsed += time.Since(begin) }
}

// Children returns the child timers in creation order.
func (t *Timer) Children() []*Timer {
	if t == nil {
		return nil
	}
	return t.children
}

// Report writes MLIR's execution time report for the tree under t.
func (t *Timer) Report(w io.Writer) {
	if t == nil {
		return
	}
	total := t.Elapsed
	if total == 0 {
		for _, c := range t.children {
			total += c.Elapsed
		}
	}
	rule := "===" + strings.Repeat("-", 73) + "==="
	title := "... Execution time report ..."
	fmt.Fprintln(w, rule)
	fmt.Fprintf(w, "%s%s\n", strings.Repeat(" ", (len(rule)-len(title))/2), title)
	fmt.Fprintln(w, rule)
	fmt.Fprintf(w, "  Total Execution Time: %.4f seconds\n\n", total.Seconds())
	fmt.Fprintln(w, "  ----Wall Time----  ----Name----")
	var walk func(c *Timer, depth int)
	walk = func(c *Timer, depth int) {
		pct := 0.0
		if total > 0 {
			pct = 100 * float64(c.Elapsed) / float64(total)
		}
		fmt.Fprintf(w, "  %8.4f (%5.1f%%)  %s%s\n", c.Elapsed.Seconds(), pct, strings.Repeat("  ", depth), c.Name)
		for _, cc := range c.children {
			walk(cc, depth+1)
		}
	}
	for _, c := range t.children {
		walk(c, 0)
	}
	fmt.Fprintf(w, "  %8.4f (%5.1f%%)  Total\n", total.Seconds(), 100.0)
}
