// TC.g4: grammar of Tensor Comprehensions (spec 03), the `.tc` input of
// tc-opt. The language is TC's own:
//
//   def matmul(float(M, K) A, float(K, N) B) -> (C) {
//     C(m, n) +=! A(m, r_k) * B(r_k, n)
//   }
//
// Expressions follow C's operator precedence and associativity (the order
// of the `exp` alternatives below, highest first; `?:` is right
// associative). Comments run from `#` to the end of the line.
//
// Names are resolved by the Go importer (dialects/tc), not here: a
// scalar type is an identifier (`float`, `int32`, ...), so a misspelt type
// gets a message listing the valid ones instead of a bare syntax error; a
// call `f(...)` is a tensor access, a builtin or a TC function call
// depending on what `f` names.
//
// Regenerate the Go parser with `make grammar` (see Makefile.frag); the
// generated files in tcparser/ are committed.

grammar TC;

// ===================================================================
// Parser rules
// ===================================================================

module_
    : func_* EOF
    ;

// def f(float(M, K) A, float c) -> (C, D) { stmt* }
func_
    : DEF name=ID '(' paramList? ')' ARROW '(' returnList? ')' '{' stmt* '}'
    ;

paramList
    : param (',' param)*
    ;

// float(M, K) A | float c | float() S (a 0-d tensor)
param
    : typeSpec name=ID
    ;

typeSpec
    : scalarType=ID ('(' sizes=sizeList? ')')?
    ;

// A size is a size variable or a constant: float(M, 256) L.
sizeList
    : size (',' size)*
    ;

size
    : ID
    | INT
    ;

returnList
    : returnItem (',' returnItem)*
    ;

// An output is a bare name; a type, when given, fixes its element type and
// its sizes.
returnItem
    : typeSpec? name=ID
    ;

idList
    : ID (',' ID)*
    ;

// A single-output TC function call `O = f(A, B)` parses as an assignment
// whose right-hand side is a call; the importer recognises it because `f`
// names a TC function. Calls with several outputs have their own form, so
// the grammar has no ambiguity between the two.
stmt
    : lhs=ID ('(' indices=idList? ')')? assignOp rhs=exp equivalent? whereClause?   # assignStmt
    | outs+=ID (',' outs+=ID)+ '=' callee=ID '(' args=idList? ')'        # callStmt
    ;

assignOp
    : '='
    | '+=' | '*=' | 'min=' | 'max='
    | '+=!' | '*=!' | 'min=!' | 'max=!'
    ;

// `<=> name(args)` documents what a statement is equivalent to (TC uses
// it for the reductions of its library); it is parsed and ignored.
equivalent
    : EQUIV name=ID '(' (exp (',' exp)*)? ')'
    ;

whereClause
    : WHERE whereItem (',' whereItem)*
    ;

whereItem
    : var=ID IN lo=exp ':' hi=exp                   # rangeItem
    | EXISTS exp                                    # existsItem
    | name=ID '=' exp                               # letItem      // a named expression
    ;

// C precedence, highest first.
exp
    : '(' exp ')'                                   # parenExp
    | name=ID '(' (exp (',' exp)*)? ')'             # callExp      // tensor access or builtin
    | name=ID DOT_INT                               # dimExp       // T.1: the size of dimension 1 of T
    | ID                                            # idExp
    | (INT | FLOAT | DOT_INT)                       # numExp
    | op=('-' | '+' | '!') exp                      # unaryExp
    | exp op=('*' | '/' | '%') exp                  # mulExp
    | exp op=('+' | '-') exp                        # addExp
    | exp op=('<' | '<=' | '>' | '>=') exp          # relExp
    | exp op=('==' | '!=') exp                      # eqExp
    | exp op='&&' exp                               # andExp
    | exp op='||' exp                               # orExp
    | <assoc=right> exp '?' exp ':' exp             # condExp
    ;

// ===================================================================
// Lexer rules (longest match wins, then the first rule)
// ===================================================================

COMMENT : '#' ~[\r\n]* -> skip ;
WS      : [ \t\r\n\f]+ -> skip ;

// Keywords (before ID).
DEF    : 'def' ;
WHERE  : 'where' ;
IN     : 'in' ;
EXISTS : 'exists' ;

ARROW  : '->' ;
EQUIV  : '<=>' ;

// Reduction operators are single tokens, so `min=` is not `min` `=`. As in
// TC, `+=!x` is `+=!` followed by `x`; write `+= !x` for a negation.
PLUS_EQ_BANG  : '+=!' ;
TIMES_EQ_BANG : '*=!' ;
MIN_EQ_BANG   : 'min=!' ;
MAX_EQ_BANG   : 'max=!' ;
PLUS_EQ       : '+=' ;
TIMES_EQ      : '*=' ;
MIN_EQ        : 'min=' ;
MAX_EQ        : 'max=' ;

// Numbers with C syntax. They come before ID because TC identifiers may
// start with digits ([_a-zA-Z0-9]*[_a-zA-Z][_a-zA-Z0-9]*): on a tie (`1e5`,
// `0x1f`, `10u`) the number wins, a longer identifier (`2i`) stays one.
FLOAT
    : DIGITS '.' DIGITS? EXPONENT? FLOAT_SUFFIX?
    | DIGITS EXPONENT FLOAT_SUFFIX?
    | '.' DIGITS ( EXPONENT FLOAT_SUFFIX? | FLOAT_SUFFIX )
    ;
INT
    : ( '0' [xX] [0-9a-fA-F]+ | DIGITS ) INT_SUFFIX?
    ;
// `.1` is the number 0.1 and, after a name, a dimension (`T.1`).
DOT_INT : '.' DIGITS ;

ID : [0-9]* [_a-zA-Z] [_a-zA-Z0-9]* ;

fragment DIGITS       : [0-9]+ ;
fragment EXPONENT     : [eE] [+\-]? DIGITS ;
fragment FLOAT_SUFFIX : [fFlL] ;
fragment INT_SUFFIX   : [uU] ( [lL] [lL]? )? | [lL] [lL]? [uU]? ;
