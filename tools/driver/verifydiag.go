package driver

import (
	"regexp"
	"strconv"
	"strings"

	"tir/dialects/ir"
)

// expectRE is MLIR's diagnostic expectation syntax:
//
//	// expected-error @+1 {{message substring}}
//
// with an optional designator @+N, @-N, @above, @below or @unknown.
var expectRE = regexp.MustCompile(`expected-(error|warning|note|remark)\s*(?:@([+-][0-9]+|above|below|unknown))?\s*\{\{(.*)\}\}`)

type expectation struct {
	sev     ir.Severity
	line    int  // the line the diagnostic must be on
	unknown bool // @unknown: a diagnostic without a location
	msg     string
	loc     ir.Location // the comment, for reporting
	matched bool
}

func severityOf(s string) ir.Severity {
	switch s {
	case "error":
		return ir.SevError
	case "warning":
		return ir.SevWarning
	case "note":
		return ir.SevNote
	}
	return ir.SevRemark
}

// parseExpectations reads the expected-* comments of a text. Lines count
// from 1 in text (a split chunk keeps the original numbering). Lines that
// hold an expectation are "designator lines": @above refers to the last
// line before the comment that is not one, @below to the next such line,
// so expectations can be stacked.
func parseExpectations(file, text string) (out []*expectation, bad ir.DiagList) {
	lines := strings.Split(text, "\n")
	designator := make([]bool, len(lines))
	for i, l := range lines {
		designator[i] = strings.Contains(l, "expected-") && expectRE.MatchString(l)
	}
	for i, l := range lines {
		if !designator[i] {
			continue
		}
		m := expectRE.FindStringSubmatchIndex(l)
		e := &expectation{
			sev:  severityOf(l[m[2]:m[3]]),
			line: i + 1,
			msg:  l[m[6]:m[7]],
			loc:  ir.Location{File: file, Line: i + 1, Col: m[0] + 1},
		}
		if m[4] >= 0 {
			switch d := l[m[4]:m[5]]; d {
			case "unknown":
				e.unknown, e.line = true, 0
			case "above":
				e.line = 0
				for j := i - 1; j >= 0; j-- {
					if !designator[j] {
						e.line = j + 1
						break
					}
				}
			case "below":
				e.line = 0
				for j := i + 1; j < len(lines); j++ {
					if !designator[j] {
						e.line = j + 1
						break
					}
				}
			default:
				n, _ := strconv.Atoi(d)
				e.line = i + 1 + n
			}
			if !e.unknown && (e.line < 1 || e.line > len(lines)) {
				bad = append(bad, ir.Errorf(e.loc, "expected %s refers to a line outside the file", e.sev))
				continue
			}
		}
		out = append(out, e)
	}
	return out, bad
}

// verifyDiagnostics matches the emitted diagnostics (notes included, each
// on its own) against the expectations in text and returns errors for
// unexpected diagnostics and unmet expectations; none means success.
func verifyDiagnostics(file, text string, diags ir.DiagList) ir.DiagList {
	exps, out := parseExpectations(file, text)
	var all []*ir.Diagnostic
	for _, d := range diags {
		all = append(all, d)
		all = append(all, d.Notes...)
	}
	for _, d := range all {
		found := false
		for _, e := range exps {
			if e.matched || e.sev != d.Severity || !strings.Contains(d.Msg, e.msg) {
				continue
			}
			if e.unknown != !d.Loc.Known() || (!e.unknown && e.line != d.Loc.Line) {
				continue
			}
			e.matched, found = true, true
			break
		}
		if !found {
			loc := d.Loc
			if loc.File == "" {
				loc.File = file
			}
			out = append(out, ir.Errorf(loc, "unexpected %s: %s", d.Severity, d.Msg))
		}
	}
	for _, e := range exps {
		if !e.matched {
			out = append(out, ir.Errorf(e.loc, "expected %s \"%s\" was not produced", e.sev, e.msg))
		}
	}
	out.Sort()
	return out
}
