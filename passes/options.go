package passes

import (
	"fmt"
	"strconv"
	"strings"
)

// OptionType is the type of a pass option.
type OptionType int

const (
	OptInt     OptionType = iota // int
	OptBool                      // bool
	OptString                    // string
	OptIntList                   // int-list
)

func (t OptionType) String() string {
	switch t {
	case OptInt:
		return "int"
	case OptBool:
		return "bool"
	case OptString:
		return "string"
	default:
		return "int-list"
	}
}

// OptionSpec declares one option of a pass.
type OptionSpec struct {
	Name string
	Type OptionType
	// Default is an int, bool, string or []int matching Type; nil means
	// the type's zero value.
	Default any
	Help    string
	// Choices, for string options, lists the accepted values.
	Choices []string
}

func (o OptionSpec) checkDefault() error {
	if o.Name == "" || strings.ContainsAny(o.Name, "{}=, \t") {
		return fmt.Errorf("invalid option name %q", o.Name)
	}
	if o.Default == nil {
		return nil
	}
	ok := false
	switch o.Type {
	case OptInt:
		_, ok = o.Default.(int)
	case OptBool:
		_, ok = o.Default.(bool)
	case OptString:
		var s string
		s, ok = o.Default.(string)
		if ok && len(o.Choices) > 0 && !contains(o.Choices, s) {
			return fmt.Errorf("option %s: default %q is not one of its choices", o.Name, s)
		}
	case OptIntList:
		_, ok = o.Default.([]int)
	}
	if !ok {
		return fmt.Errorf("option %s: default %v (%T) is not a %s", o.Name, o.Default, o.Default, o.Type)
	}
	return nil
}

func (o OptionSpec) defaultValue() any {
	if o.Default != nil {
		if l, ok := o.Default.([]int); ok {
			return append([]int(nil), l...)
		}
		return o.Default
	}
	switch o.Type {
	case OptInt:
		return 0
	case OptBool:
		return false
	case OptString:
		return ""
	default:
		return []int(nil)
	}
}

// parse converts the text of a value. bare is true for `{name}` without
// `=value`, accepted for bool options only.
func (o OptionSpec) parse(text string, bare bool) (any, error) {
	if bare {
		if o.Type == OptBool {
			return true, nil
		}
		return nil, fmt.Errorf("needs a value (%s)", o.Type)
	}
	switch o.Type {
	case OptInt:
		n, err := strconv.Atoi(text)
		if err != nil {
			return nil, fmt.Errorf("expects an int, got '%s'", text)
		}
		return n, nil
	case OptBool:
		switch text {
		case "true", "1", "on":
			return true, nil
		case "false", "0", "off":
			return false, nil
		}
		return nil, fmt.Errorf("expects a bool (true or false), got '%s'", text)
	case OptString:
		if len(o.Choices) > 0 && !contains(o.Choices, text) {
			return nil, fmt.Errorf("expects one of %s, got '%s'", strings.Join(o.Choices, ", "), text)
		}
		return text, nil
	default:
		var out []int
		if strings.TrimSpace(text) == "" {
			return out, nil
		}
		for _, part := range strings.Split(text, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(part))
			if err != nil {
				return nil, fmt.Errorf("expects a comma-separated list of ints, got '%s'", text)
			}
			out = append(out, n)
		}
		return out, nil
	}
}

// TypeText is how --list-passes shows the type: `<int>`, `<int,...>`,
// `<x86_64|aarch64|nvptx64>`.
func (o OptionSpec) TypeText() string {
	switch {
	case o.Type == OptString && len(o.Choices) > 0:
		return "<" + strings.Join(o.Choices, "|") + ">"
	case o.Type == OptIntList:
		return "<int,...>"
	default:
		return "<" + o.Type.String() + ">"
	}
}

// DefaultText is the default value as written in a pipeline.
func (o OptionSpec) DefaultText() string { return formatValue(o.Type, o.defaultValue()) }

func formatValue(t OptionType, v any) string {
	switch t {
	case OptIntList:
		var parts []string
		for _, n := range v.([]int) {
			parts = append(parts, strconv.Itoa(n))
		}
		return strings.Join(parts, ",")
	case OptString:
		s := v.(string)
		if s == "" || strings.ContainsAny(s, " \t\n{}\"'") {
			return strconv.Quote(s)
		}
		return s
	default:
		return fmt.Sprint(v)
	}
}

// Options are the values of a pass instance's options: every declared
// option has a value (its default unless given).
type Options struct {
	specs []OptionSpec
	vals  map[string]any
	set   map[string]bool
}

// DefaultOptions returns the defaults of a pass.
func DefaultOptions(d *Def) Options {
	o := Options{specs: d.Options, vals: map[string]any{}, set: map[string]bool{}}
	for _, s := range d.Options {
		o.vals[s.Name] = s.defaultValue()
	}
	return o
}

func (o Options) get(name string, t OptionType) any {
	v, ok := o.vals[name]
	if !ok {
		panic(fmt.Sprintf("passes: undeclared option %q", name))
	}
	for _, s := range o.specs {
		if s.Name == name && s.Type != t {
			panic(fmt.Sprintf("passes: option %q is a %s, not a %s", name, s.Type, t))
		}
	}
	return v
}

// Int returns an int option.
func (o Options) Int(name string) int { return o.get(name, OptInt).(int) }

// Bool returns a bool option.
func (o Options) Bool(name string) bool { return o.get(name, OptBool).(bool) }

// String returns a string option.
func (o Options) String(name string) string { return o.get(name, OptString).(string) }

// Ints returns an int-list option (a copy).
func (o Options) Ints(name string) []int {
	return append([]int(nil), o.get(name, OptIntList).([]int)...)
}

// IsSet reports whether the option was given explicitly.
func (o Options) IsSet(name string) bool { return o.set[name] }

// Text prints every option in declaration order, MLIR style:
// `{a=1 b=true c=1,2}`; "" when the pass has no options.
func (o Options) Text() string {
	if len(o.specs) == 0 {
		return ""
	}
	var parts []string
	for _, s := range o.specs {
		parts = append(parts, s.Name+"="+formatValue(s.Type, o.vals[s.Name]))
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// setText parses and sets one option of pass d.
func (o Options) setText(d *Def, name, text string, bare bool) error {
	for _, s := range o.specs {
		if s.Name != name {
			continue
		}
		v, err := s.parse(text, bare)
		if err != nil {
			return fmt.Errorf("option '%s' of pass '%s' %v", name, d.Name, err)
		}
		o.vals[name] = v
		o.set[name] = true
		return nil
	}
	if len(o.specs) == 0 {
		return fmt.Errorf("pass '%s' has no options (got '%s')", d.Name, name)
	}
	var names []string
	for _, s := range o.specs {
		names = append(names, s.Name)
	}
	msg := fmt.Sprintf("pass '%s' has no option '%s'", d.Name, name)
	if c := closest(name, names); c != "" {
		msg += fmt.Sprintf("; did you mean '%s'?", c)
	}
	return fmt.Errorf("%s (valid options: %s)", msg, strings.Join(names, ", "))
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
