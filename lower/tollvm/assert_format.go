package tollvm

import (
	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"tir/lower/abi"
)

// formatAsserts emits, in the wrapper after the call of the body that
// returned rc, the messages of the cf.asserts that carry run-time values
// (abi.AttrAssertFormat): when rc is the code of one, its format is
// printed with the values into the error buffer (buf) and the code
// recorded in errCode, as the entry checks do, so that f_error(rc) says
// "expected extent 20, got 18". env gives the values of the dimensions
// (the descriptor sizes, abi.Signature.SizeDims) and of the symbols.
func (fe *fnEmitter) formatAsserts(rc value.Value, env affineEnv, buf constant.Constant, errCode *ll.Global) error {
	return fe.formatAssertList(fe.me.asserts, rc, env, buf, errCode)
}

// formatAssertList is formatAsserts for the asserts of one body.
func (fe *fnEmitter) formatAssertList(asserts []check, rc value.Value, env affineEnv, buf constant.Constant, errCode *ll.Global) error {
	for _, c := range asserts {
		if c.format == "" {
			continue
		}
		msg := fe.place(fe.newBlock("assert.msg"))
		next := fe.place(fe.newBlock("assert.next"))
		code := constant.NewInt(types.I32, int64(c.code))
		fe.cur.NewCondBr(fe.cur.NewICmp(enum.IPredEQ, rc, code), msg, next)
		fe.cur = msg
		args := []value.Value{buf, i64(abi.ErrBufSize), fe.me.cstring(c.format)}
		for _, v := range c.values {
			x, err := fe.lowerExpr(v, env)
			if err != nil {
				return err
			}
			args = append(args, x)
		}
		snprintf := fe.me.declare("snprintf", types.I32, true, types.I8Ptr, types.I64, types.I8Ptr)
		fe.cur.NewCall(snprintf, args...)
		fe.cur.NewStore(code, errCode)
		fe.cur.NewBr(next)
		fe.cur = next
	}
	return nil
}
