// TIR.g4: grammar of the textual IR (a subset of MLIR's syntax, spec 01).
//
// The grammar parses types, attributes, affine maps and sets, size
// expressions, regions and blocks structurally. Custom op syntaxes are NOT
// spelled out per op: a custom op is `opName customItem*` and the Go IR
// builder interprets the item list per op. See README.md for the rules that
// keep the item loop of one op from swallowing the next op.
//
// Regenerate the Go parser with `make grammar` (see Makefile.frag); the
// generated files in tirparser/ are committed.

grammar TIR;

// ===================================================================
// Parser rules
// ===================================================================

module_
    : topLevel* EOF
    ;

topLevel
    : typeAliasDef
    | attrAliasDef
    | operation
    ;

// !name = type
typeAliasDef
    : BANG_ID '=' type_
    ;

// #name = attribute
attrAliasDef
    : HASH_ID '=' attribute
    ;

// %a, %b:2 = op ...
operation
    : (opResult (',' opResult)* '=')? (genericOp | customOp)
    ;

// %r or %r:2 (a result pack)
opResult
    : VALUE_ID (':' INT)?
    ;

// "dialect.op"(%a, %b)[^succ] ({ region }, { region }) {attr = value} : (T1, T2) -> (R1, R2)
genericOp
    : STRING '(' valueUseList? ')' successorList? ('(' region (',' region)* ')')? dictAttr? ':' functionType
    ;

successorList
    : '[' CARET_ID (',' CARET_ID)* ']'
    ;

valueUseList
    : VALUE_ID (',' VALUE_ID)*
    ;

// A string right after the op name is a symbol visibility; it is followed
// by a symbol or a word, which tells it from the start of a generic op.
//
// `module` (builtin.module shorthand), `return` (an op of the enclosing op's
// default dialect: func.return inside func.func, as MLIR prints it) or
// dialect.op. `return` is a keyword, not an identifier, so that an op's item
// loop cannot swallow the `return` that follows it.
customOp
    : opName (STRING afterString)? angleWord? customItem*      // memref.global "private" @g ...
    ;

// `<word>` right after an op name: the combining kind of MLIR's vector
// reductions (`vector.reduction <add>, %v : vector<8xf32> into f32`). No
// item starts with '<', so the item loop is unaffected.
angleWord
    : '<' identifier '>'
    ;

// What follows a string right after an op name: never '(', so the string
// cannot be the start of a generic op.
afterString
    : SYMBOL_REF
    | identifier
    ;

opName
    : OP_NAME
    | 'module'
    | 'return'
    | 'call'                                        // func.call inside func.func, as MLIR 16 prints it
    ;

// One element of a custom op's body. Neither an op name nor a string (the
// start of a generic op) is an item, and ',' ':' '=' only occur bound to the
// item that follows (and, for '=', to the value or group before it). So the
// items of an op can never end with a prefix of the next operation
// (`%a, %b:2 =`, `^bb1(...):`, `!t =`, `#m =`): the loop exit is unambiguous.
// Walkers that want a flat token-like list flatten the binding items.
customItem
    : VALUE_ID '=' customItem                       # valueBindItem     // %i = 0, %acc = %1
    | VALUE_ID                                      # valueItem
    | parenGroup '=' customItem                     # groupBindItem     // (%k) = (0)
    | parenGroup                                    # parenItem         // (%a: T, ...), iter_args(...), (0.0, 0.0)
    | ':' customItem                                # colonItem         // : T
    | ':' customItem '=' customItem                 # colonBindItem     // memref.global @g : T = dense<...>
    | ',' groupElem                                 # commaItem         // , %b
    | SYMBOL_REF                                    # symbolItem        // @f, @mod::@kernel
    | CARET_ID                                      # blockRefItem
    | identifier                                    # wordItem          // add, lt, to, over, f32, index
    | compositeType                                 # typeItem          // memref<..>, tuple<..>, !tir.tensor<..>, !alias
    | affineMapAttr                                 # affineMapItem
    | affineSetAttr                                 # affineSetItem
    | dialectAttr                                   # dialectAttrItem   // #tir.offsets<[I + 1]>
    | HASH_ID                                       # attrAliasItem     // #map
    | INT                                           # intItem
    | HEX                                           # hexItem
    | FLOAT                                         # floatItem
    | value=('true' | 'false')                      # boolItem
    | punct=('->' | '+' | '-' | '*' | '?')          # punctItem
    | bracketList                                   # bracketItem
    | 'attributes' dictAttr                         # attributesItem
    | region                                        # regionItem
    | bareDict                                      # bareDictItem
    ;

// A dictionary after a region (`affine.for ... { } {tir.parallel}`, as
// MLIR's printOptionalAttrDict writes it). Its alternatives exclude what is
// also a region: `{}` and a single dotted unit key `{a.b}` (a region
// holding the op a.b) are read as regions, and the op's parser, which knows
// a dictionary may follow its body, reads them back as one.
bareDict
    : '{' keyedEntry (',' dictEntry)* '}'
    | '{' unitEntry (',' dictEntry)+ '}'
    | '{' plainKey '}'
    ;

keyedEntry
    : dictKey '=' attribute
    ;

unitEntry
    : dictKey
    ;

plainKey
    : identifier
    | STRING
    ;

// ( ... ): inside parentheses strings and nested items are allowed.
parenGroup
    : '(' groupElem* ')'
    ;

groupElem
    : customItem                                    # groupCustomElem
    | STRING                                        # groupStringElem
    ;

bracketList
    : '[' (bracketEntry (',' bracketEntry)*)? ']'
    ;

bracketEntry
    : identifier '[' lo=expr (':' hi=expr)? ']'     # dimEntry          // I[1:4], I[?]
    | caseKey ':' CARET_ID parenGroup?              # caseEntry         // default: ^bb1(%x : i32), -1: ^bb2
    | bracketList                                   # nestedEntry       // [[0, 1], [2]]
    | identifier '=' expr                           # namedEntry        // d0 = i + k, Vertex = %e2v
    | lo=expr ':' hi=expr                           # rangeEntry        // 0:9
    | expr                                          # exprEntry         // I + 1, %i + 1, 1
    ;

// The key of a cf.switch case: `default` or an integer.
caseKey
    : identifier
    | neg='-'? INT
    ;

region
    : '{' operation* block* '}'
    ;

block
    : blockLabel operation*
    ;

blockLabel
    : CARET_ID ('(' (blockArg (',' blockArg)*)? ')')? ':'
    ;

// The type may be omitted in tir input.
blockArg
    : VALUE_ID (':' type_)?
    ;

// ------------------------------------------------------------------ types

type_
    : identifier                                    # namedType         // i32 f32 index bf16
    | compositeType                                 # compositeTypeAlt
    | functionType                                  # funcType
    ;

// A type that is neither a bare word nor a function type (those two are
// ambiguous with the word and parenthesised-group custom items).
compositeType
    : identifier '<' typeParam (',' typeParam)* '>'       # parametricType   // memref<..>, vector<..>, tuple<..>, strided<..>
    | identifier '<' '>'                                  # emptyParametricType // dense<> (no elements)
    | BANG_ID ('<' typeParam (',' typeParam)* '>')?       # dialectType      // !alias, !tir.tensor<f32, I[0:N]>
    ;

typeParam
    : (SHAPE_DIM | spacedDim)* type_                # shapeParam        // 4x?xf32, f32, tuple<f32, f32>, 2 x i32
    | identifier '[' lo=expr (':' hi=expr)? ']'     # dimParam          // I[0:N-1], I[?]
    | '[' (expr (',' expr)*)? ']'                   # listParam         // strided<[?, 1], ...>
    | '[' signedFloat (',' signedFloat)* ']'        # floatListParam    // dense<[0.0, 1.5]>
    | identifier ':' expr                           # keyParam          // offset: ?
    | neg='-'? INT                                  # intParam          // memory space
    | neg='-'? FLOAT                                # floatParam        // dense<1.5>
    | '*' identifier                                # unrankedParam     // memref<*xf32>: `*` then the word xf32
    | affineMapAttr                                 # affineMapParam    // memref layout
    | dialectAttr                                   # dialectAttrParam
    | STRING                                        # stringParam       // !foo.t<"x"> (kept verbatim)
    | value=('true' | 'false')                      # boolParam         // dense<true>
    | HASH_ID                                       # attrAliasParam    // memref layout alias
    ;

signedFloat
    : neg='-'? FLOAT
    ;

// `4 x` with blanks, as MLIR also reads shapes (memref<2 x i32>); the
// identifier must be `x` (checked by the Go side).
spacedDim
    : (INT | '?') identifier
    ;

functionType
    : '(' ins=typeList? ')' '->' ( '(' outs=typeList? ')' | out=type_ )
    ;

typeList
    : type_ (',' type_)*
    ;

// ------------------------------------------------------------- attributes

attribute
    : neg='-'? value=(INT | HEX | FLOAT) (':' type_)?     # numberAttr      // 3 : i64, -1.5 : f32
    | STRING                                        # stringAttr
    | value=('true' | 'false')                      # boolAttr
    | '[' (attribute (',' attribute)*)? ']'         # arrayAttr
    | dictAttr                                      # dictAttribute
    | affineMapAttr                                 # affineMapAttribute
    | affineSetAttr                                 # affineSetAttribute
    | dialectAttr                                   # dialectAttribute
    | HASH_ID                                       # attrAliasRef
    | SYMBOL_REF                                    # symbolRefAttr     // @f, @mod::@kernel
    | type_ elementsType?                           # typeAttr          // also `unit`; dense<1> : tensor<2xi32>
    ;

// The shaped type of an elements attribute: `dense<...> : vector<8xf32>`.
elementsType
    : ':' type_
    ;

// #dialect.name<...>, body items interpreted per attribute by the Go side.
dialectAttr
    : HASH_ID '<' groupElem* '>'
    ;

dictAttr
    : '{' (dictEntry (',' dictEntry)*)? '}'
    ;

// A bare key is a unit attribute.
dictEntry
    : dictKey ('=' attribute)?
    ;

dictKey
    : identifier
    | OP_NAME
    | STRING
    | 'module'
    | 'return'
    | 'call'
    | 'attributes'
    | 'true'
    | 'false'
    | 'affine_map'
    | 'affine_set'
    ;

affineMapAttr
    : 'affine_map' '<' dimSymLists '->' '(' (expr (',' expr)*)? ')' '>'
    ;

affineSetAttr
    : 'affine_set' '<' dimSymLists ':' '(' (constraint (',' constraint)*)? ')' '>'
    ;

// (d0, d1)[s0]
dimSymLists
    : '(' dims=identList? ')' ('[' syms=identList? ']')?
    ;

identList
    : identifier (',' identifier)*
    ;

constraint
    : lhs=expr op=('>=' | '==' | '<=') rhs=expr
    ;

// ------------------------------------------------- affine / size expressions

expr
    : '-' expr                                      # negExpr
    | expr op=('*' | 'floordiv' | 'ceildiv' | 'mod') expr # mulExpr
    | expr op=('+' | '-') expr                      # addExpr
    | atom                                          # atomExpr
    ;

atom
    : INT                                           # intAtom
    | identifier '(' expr (',' expr)* ')'           # callAtom          // min(a, b), max(..), symbol(%n)
    | identifier                                    # idAtom
    | VALUE_ID                                      # valueAtom
    | '?' identifier?                               # unknownAtom       // ?, or ?_inp_I: an extent bound at run time
    | '(' expr ')'                                  # parenAtom
    ;

// Soft keywords are allowed where a name is expected; the Go side decides.
identifier
    : ID
    | 'floordiv'
    | 'ceildiv'
    | 'mod'
    ;

// ===================================================================
// Lexer rules (longest match wins, then the first rule)
// ===================================================================

LINE_COMMENT : '//' ~[\r\n]* -> skip ;
WS           : [ \t\r\n\f]+ -> skip ;

// Keywords (before ID and OP_NAME).
AFFINE_MAP : 'affine_map' ;
AFFINE_SET : 'affine_set' ;
TRUE       : 'true' ;
FALSE      : 'false' ;
ATTRIBUTES : 'attributes' ;
FLOORDIV   : 'floordiv' ;
CEILDIV    : 'ceildiv' ;
MOD        : 'mod' ;
MODULE     : 'module' ;
RETURN     : 'return' ;
CALL       : 'call' ;

VALUE_ID   : '%' [a-zA-Z0-9_$.\-]+ ( '#' [0-9]+ )? ;
CARET_ID   : '^' [a-zA-Z0-9_$.\-]+ ;
// A symbol reference, flat (@f) or nested (@mod::@kernel, a symbol inside the
// symbol table @mod). One token, so `::` needs no token of its own; the
// price is that the parts must be adjacent, as MLIR prints them (its parser
// also takes `@mod :: @kernel`).
SYMBOL_REF : SYMBOL_PART ( '::' SYMBOL_PART )* ;
fragment SYMBOL_PART : '@' ( [a-zA-Z_$.] [a-zA-Z0-9_$.]* | STRING_BODY ) ;
BANG_ID    : '!' [a-zA-Z_] [a-zA-Z0-9_$.]* ;
HASH_ID    : '#' [a-zA-Z_] [a-zA-Z0-9_$.]* ;

OP_NAME    : [a-zA-Z_] [a-zA-Z0-9_$]* ( '.' [a-zA-Z0-9_$]+ )+ ;
ID         : [a-zA-Z_] [a-zA-Z0-9_$]* ;

// 4x ?x: one dimension of a shape (memref<4x?xf32>, vector<8xf32>); [8]x is
// a scalable dimension (vector<[8]xf32>). MLIR's spaced `4 x f32` is read
// by the shapeParam rule (spacedDim), not here: `N-1 x[...]` must stay
// INT then ID in tir dimension lists.
SHAPE_DIM  : ( [0-9]+ | '?' ) 'x' | '[' [0-9]+ ']x' ;

HEX        : '0x' [0-9a-fA-F]+ ;
INT        : [0-9]+ ;
FLOAT
    : [0-9]+ '.' [0-9]* ( [eE] [+-]? [0-9]+ )?
    | [0-9]+ [eE] [+-]? [0-9]+
    ;

STRING     : STRING_BODY ;

fragment STRING_BODY : '"' ( '\\' . | ~["\\\r\n] )* '"' ;

// Punctuation. There is deliberately no '>>' token.
ARROW    : '->' ;
GE       : '>=' ;
LE       : '<=' ;
EQEQ     : '==' ;
LPAREN   : '(' ;
RPAREN   : ')' ;
LBRACKET : '[' ;
RBRACKET : ']' ;
LBRACE   : '{' ;
RBRACE   : '}' ;
LANGLE   : '<' ;
RANGLE   : '>' ;
COMMA    : ',' ;
COLON    : ':' ;
EQUAL    : '=' ;
PLUS     : '+' ;
MINUS    : '-' ;
STAR     : '*' ;
QUESTION : '?' ;
