func.func @f(%arg0: index, %arg1: index) {
  %0 = arith.cmpi sle, %arg0, %arg1 : index
  cf.assert %0, "argument 'x' dimension I: N must be at most M"
  func.return
}
