package parser

import (
	"math"
	"strconv"
	"strings"

	"github.com/antlr4-go/antlr/v4"

	"tir/dialects/ir"
	"tir/grammar/tirparser"
)

// items flattens one grammar customItem into ir items: bindings such as
// `%i = 0` and typed tails `: T` become separate items, so op Parse hooks
// see a plain sequence.
func (b *builder) items(c tirparser.ICustomItemContext) ([]ir.Item, error) {
	loc := b.locOf(c)
	punct := func(s string, l ir.Location) ir.Item { return ir.Item{Kind: ir.ItemPunct, Loc: l, Text: s} }
	switch c := c.(type) {
	case *tirparser.ValueBindItemContext:
		rest, err := b.items(c.CustomItem())
		if err != nil {
			return nil, err
		}
		return append([]ir.Item{{Kind: ir.ItemValue, Loc: loc, Text: c.VALUE_ID().GetText()[1:]}, punct("=", b.loc(c.EQUAL().GetSymbol()))}, rest...), nil
	case *tirparser.ValueItemContext:
		return []ir.Item{{Kind: ir.ItemValue, Loc: loc, Text: c.VALUE_ID().GetText()[1:]}}, nil
	case *tirparser.GroupBindItemContext:
		g, err := b.group(c.ParenGroup())
		if err != nil {
			return nil, err
		}
		rest, err := b.items(c.CustomItem())
		if err != nil {
			return nil, err
		}
		return append([]ir.Item{g, punct("=", b.loc(c.EQUAL().GetSymbol()))}, rest...), nil
	case *tirparser.ParenItemContext:
		g, err := b.group(c.ParenGroup())
		if err != nil {
			return nil, err
		}
		return []ir.Item{g}, nil
	case *tirparser.ColonItemContext:
		rest, err := b.items(c.CustomItem())
		if err != nil {
			return nil, err
		}
		return append([]ir.Item{punct(":", loc)}, rest...), nil
	case *tirparser.ColonBindItemContext:
		out := []ir.Item{punct(":", loc)}
		for i, ci := range c.AllCustomItem() {
			if i > 0 {
				out = append(out, punct("=", b.loc(c.EQUAL().GetSymbol())))
			}
			rest, err := b.items(ci)
			if err != nil {
				return nil, err
			}
			out = append(out, rest...)
		}
		return out, nil
	case *tirparser.CommaItemContext:
		rest, err := b.groupElem(c.GroupElem())
		if err != nil {
			return nil, err
		}
		return append([]ir.Item{punct(",", loc)}, rest...), nil
	case *tirparser.SymbolItemContext:
		path, err := symbolPath(c.SYMBOL_REF().GetText())
		if err != nil {
			return nil, ir.Errorf(loc, "%v", err)
		}
		return []ir.Item{{Kind: ir.ItemSymbol, Loc: loc, Text: path[0], Attr: ir.SymbolRef(path...)}}, nil
	case *tirparser.BlockRefItemContext:
		return []ir.Item{{Kind: ir.ItemBlockRef, Loc: loc, Text: c.CARET_ID().GetText()[1:]}}, nil
	case *tirparser.WordItemContext:
		return []ir.Item{{Kind: ir.ItemWord, Loc: loc, Text: c.GetText()}}, nil
	case *tirparser.TypeItemContext:
		// dense<...> and array<...> are attributes spelled like types.
		if a, ok, err := b.literalAttr(c.CompositeType()); ok || err != nil {
			return []ir.Item{{Kind: ir.ItemAttr, Loc: loc, Attr: a}}, err
		}
		t, err := b.compositeType(c.CompositeType())
		if err != nil {
			return nil, err
		}
		return []ir.Item{{Kind: ir.ItemType, Loc: loc, Type: t}}, nil
	case *tirparser.AffineMapItemContext:
		m, err := b.affineMap(c.AffineMapAttr())
		if err != nil {
			return nil, err
		}
		return []ir.Item{{Kind: ir.ItemAttr, Loc: loc, Attr: ir.AffineMapAttr{Map: m}}}, nil
	case *tirparser.AffineSetItemContext:
		s, err := b.affineSet(c.AffineSetAttr())
		if err != nil {
			return nil, err
		}
		return []ir.Item{{Kind: ir.ItemAttr, Loc: loc, Attr: ir.AffineSetAttr{Set: s}}}, nil
	case *tirparser.DialectAttrItemContext:
		a, err := b.dialectAttr(c.DialectAttr())
		if err != nil {
			return nil, err
		}
		return []ir.Item{{Kind: ir.ItemAttr, Loc: loc, Attr: a}}, nil
	case *tirparser.AttrAliasItemContext:
		a, err := b.attrAliasRef(c.HASH_ID().GetSymbol())
		if err != nil {
			return nil, err
		}
		return []ir.Item{{Kind: ir.ItemAttr, Loc: loc, Attr: a}}, nil
	case *tirparser.IntItemContext:
		v, err := parseInt(c.GetText(), 10, false)
		if err != nil {
			return nil, ir.Errorf(loc, "integer literal %s is out of range", c.GetText())
		}
		return []ir.Item{{Kind: ir.ItemInt, Loc: loc, Int: v, Text: c.GetText()}}, nil
	case *tirparser.HexItemContext:
		v, err := strconv.ParseUint(c.GetText()[2:], 16, 64)
		if err != nil {
			return nil, ir.Errorf(loc, "hexadecimal literal %s is out of range", c.GetText())
		}
		return []ir.Item{{Kind: ir.ItemInt, Loc: loc, Int: int64(v), Text: c.GetText()}}, nil
	case *tirparser.FloatItemContext:
		v, err := strconv.ParseFloat(c.GetText(), 64)
		if err != nil && !math.IsInf(v, 0) {
			return nil, ir.Errorf(loc, "bad float literal %s", c.GetText())
		}
		return []ir.Item{{Kind: ir.ItemFloat, Loc: loc, Float: v, Text: c.GetText()}}, nil
	case *tirparser.BoolItemContext:
		v := int64(0)
		if c.GetText() == "true" {
			v = 1
		}
		return []ir.Item{{Kind: ir.ItemBool, Loc: loc, Int: v, Text: c.GetText()}}, nil
	case *tirparser.PunctItemContext:
		return []ir.Item{punct(c.GetText(), loc)}, nil
	case *tirparser.BracketItemContext:
		it, err := b.bracketList(c.BracketList())
		if err != nil {
			return nil, err
		}
		return []ir.Item{it}, nil
	case *tirparser.AttributesItemContext:
		d, err := b.dict(c.DictAttr())
		if err != nil {
			return nil, err
		}
		return []ir.Item{{Kind: ir.ItemAttrDict, Loc: loc, Attr: d}}, nil
	case *tirparser.RegionItemContext:
		it := ir.Item{Kind: ir.ItemRegion, Loc: loc, Raw: c.Region()}
		if d, ok := regionAsDict(c.Region()); ok {
			it.Attr = d
		}
		return []ir.Item{it}, nil
	case *tirparser.BareDictItemContext:
		d, err := b.bareDict(c.BareDict())
		if err != nil {
			return nil, err
		}
		return []ir.Item{{Kind: ir.ItemBareDict, Loc: loc, Attr: d}}, nil
	}
	return nil, ir.Errorf(loc, "unexpected '%s'", c.GetText())
}

func (b *builder) group(g tirparser.IParenGroupContext) (ir.Item, error) {
	it := ir.Item{Kind: ir.ItemParens, Loc: b.locOf(g)}
	for _, e := range g.AllGroupElem() {
		its, err := b.groupElem(e)
		if err != nil {
			return it, err
		}
		it.Items = append(it.Items, its...)
	}
	return it, nil
}

func (b *builder) groupElem(e tirparser.IGroupElemContext) ([]ir.Item, error) {
	switch e := e.(type) {
	case *tirparser.GroupCustomElemContext:
		return b.items(e.CustomItem())
	case *tirparser.GroupStringElemContext:
		s, err := unquote(e.STRING().GetText())
		if err != nil {
			return nil, ir.Errorf(b.locOf(e), "%v", err)
		}
		return []ir.Item{{Kind: ir.ItemString, Loc: b.locOf(e), Text: s}}, nil
	}
	return nil, ir.Errorf(b.locOf(e), "unexpected '%s'", e.GetText())
}

func (b *builder) bracketList(l tirparser.IBracketListContext) (ir.Item, error) {
	it := ir.Item{Kind: ir.ItemBrackets, Loc: b.locOf(l)}
	for _, e := range l.AllBracketEntry() {
		be := ir.BracketEntry{Loc: b.locOf(e)}
		var err error
		switch e := e.(type) {
		case *tirparser.CaseEntryContext:
			be.Form, be.Succ = ir.EntryCase, e.CARET_ID().GetText()[1:]
			k := e.CaseKey()
			if k.Identifier() != nil {
				be.Name = k.Identifier().GetText()
			} else {
				be.Text = k.INT().GetText()
				if k.GetNeg() != nil {
					be.Text = "-" + be.Text
				}
			}
			if g := e.ParenGroup(); g != nil {
				var args ir.Item
				if args, err = b.group(g); err == nil {
					be.Args = &args
				}
			}
		case *tirparser.NestedEntryContext:
			be.Form = ir.EntryNested
			var sub ir.Item
			if sub, err = b.bracketList(e.BracketList()); err == nil {
				be.Nested = sub.Entries
			}
		case *tirparser.DimEntryContext:
			be.Form, be.Name = ir.EntryNamedInterval, e.Identifier().GetText()
			if e.GetHi() != nil {
				if be.Lo, err = b.expr(e.GetLo()); err == nil {
					be.Hi, err = b.expr(e.GetHi())
				}
			} else {
				be.Hi, err = b.expr(e.GetLo())
			}
		case *tirparser.NamedEntryContext:
			be.Form, be.Name = ir.EntryAssign, e.Identifier().GetText()
			be.E, err = b.expr(e.Expr())
		case *tirparser.RangeEntryContext:
			be.Form = ir.EntryInterval
			if be.Lo, err = b.expr(e.GetLo()); err == nil {
				be.Hi, err = b.expr(e.GetHi())
			}
		case *tirparser.ExprEntryContext:
			be.Form = ir.EntryExpr
			be.E, err = b.expr(e.Expr())
		}
		if err != nil {
			return it, err
		}
		it.Entries = append(it.Entries, be)
	}
	return it, nil
}

// unquote decodes a string literal with C escapes (\n, \t, \", \\, \XX hex).
func unquote(s string) (string, error) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", errString("malformed string literal")
	}
	s = s[1 : len(s)-1]
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out.WriteByte(c)
			continue
		}
		i++
		if i >= len(s) {
			return "", errString("string ends with a backslash")
		}
		switch s[i] {
		case 'n':
			out.WriteByte('\n')
		case 't':
			out.WriteByte('\t')
		case '"', '\\':
			out.WriteByte(s[i])
		default:
			if i+1 < len(s) {
				if v, err := strconv.ParseUint(s[i:i+2], 16, 8); err == nil {
					out.WriteByte(byte(v))
					i++
					continue
				}
			}
			return "", errString("unknown escape sequence \\" + string(s[i]))
		}
	}
	return out.String(), nil
}

type errString string

func (e errString) Error() string { return string(e) }

// symbolPath splits a SYMBOL_REF token (@a, @"q n", @a::@b::@c) into its
// names. Bare names cannot contain ':', and a quoted one is read to its
// closing quote, so a "::" inside quotes does not split.
func symbolPath(tok string) ([]string, error) {
	var path []string
	for {
		if !strings.HasPrefix(tok, "@") {
			return nil, errString("malformed symbol reference")
		}
		tok = tok[1:]
		var name string
		if strings.HasPrefix(tok, "\"") {
			end := 1
			for end < len(tok) && tok[end] != '"' {
				if tok[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(tok) {
				return nil, errString("unterminated symbol name")
			}
			var err error
			if name, err = unquote(tok[:end+1]); err != nil {
				return nil, err
			}
			tok = tok[end+1:]
		} else {
			i := strings.Index(tok, "::")
			if i < 0 {
				i = len(tok)
			}
			name, tok = tok[:i], tok[i:]
		}
		path = append(path, name)
		if tok == "" {
			return path, nil
		}
		if !strings.HasPrefix(tok, "::") {
			return nil, errString("malformed symbol reference")
		}
		tok = tok[2:]
	}
}

func (b *builder) attrAliasRef(tok antlr.Token) (ir.Attribute, error) {
	name := tok.GetText()[1:]
	a, ok := b.attrAlias[name]
	if !ok {
		return nil, ir.Errorf(b.loc(tok), "undefined attribute alias #%s", name)
	}
	return a, nil
}

// regionAsDict reads `{a.b}` — a region holding one bare custom op without
// results, items or blocks — as the dictionary it also is: the unit
// attribute a.b. Other regions are not dictionaries.
func regionAsDict(r tirparser.IRegionContext) (ir.DictAttr, bool) {
	rc, ok := r.(*tirparser.RegionContext)
	if !ok || len(rc.AllBlock()) != 0 || len(rc.AllOperation()) != 1 {
		return nil, false
	}
	op := rc.Operation(0)
	if len(op.AllOpResult()) != 0 || op.CustomOp() == nil {
		return nil, false
	}
	custom := op.CustomOp()
	if len(custom.AllCustomItem()) != 0 || custom.AngleWord() != nil || custom.OpName().OP_NAME() == nil {
		return nil, false
	}
	return ir.DictAttr{{Name: custom.OpName().GetText(), Value: ir.UnitAttr{}}}, true
}
