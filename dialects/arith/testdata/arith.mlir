func.func @scalars(%a: f32, %b: f32, %i: i32, %j: i32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c42 = arith.constant -42 : i32
  %cst = arith.constant 1.5 : f32
  %big = arith.constant 1.0e+30 : f64
  %nan = arith.constant 0x7FC00000 : f32
  %true = arith.constant true
  %0 = arith.addf %a, %b : f32
  %1 = arith.subf %0, %cst : f32
  %2 = arith.mulf %1, %b : f32
  %3 = arith.divf %2, %a : f32
  %4 = arith.remf %3, %a : f32
  %5 = arith.maxf %4, %a : f32
  %6 = arith.minf %5, %a : f32
  %7 = arith.negf %6 : f32
  %8 = arith.addi %i, %j : i32
  %9 = arith.subi %8, %c42 : i32
  %10 = arith.muli %9, %j : i32
  %11 = arith.divsi %10, %j : i32
  %12 = arith.remsi %11, %j : i32
  %13 = arith.floordivsi %12, %j : i32
  %14 = arith.ceildivsi %13, %j : i32
  %15 = arith.maxsi %14, %j : i32
  %16 = arith.minsi %15, %j : i32
  %17 = arith.andi %16, %j : i32
  %18 = arith.ori %17, %j : i32
  %19 = arith.xori %18, %j : i32
  %20 = arith.addi %n, %c0 : index
  %21 = arith.cmpf olt, %7, %a : f32
  %22 = arith.cmpi sge, %19, %i : i32
  %23 = arith.andi %21, %22 : i1
  %24 = arith.select %23, %7, %cst : f32
  %25 = arith.index_cast %20 : index to i64
  %26 = arith.sitofp %19 : i32 to f32
  %27 = arith.fptosi %24 : f32 to i32
  %28 = arith.extf %24 : f32 to f64
  %29 = arith.truncf %28 : f64 to f32
  %30 = arith.extsi %27 : i32 to i64
  %31 = arith.trunci %30 : i64 to i32
  %32 = arith.bitcast %29 : f32 to i32
  %33 = arith.cmpf une, %nan, %cst : f32
  %34 = arith.select %true, %29, %26 : f32
  %35 = arith.select %33, %34, %cst {tir.mask} : f32
  func.return %35 : f32
}

func.func @vectors(%x: vector<8xf32>, %y: vector<8xf32>) -> vector<8xf32> {
  %cst = arith.constant dense<0.5> : vector<8xf32>
  %ones = arith.constant dense<1> : vector<8xi32>
  %0 = arith.mulf %x, %cst : vector<8xf32>
  %1 = arith.addf %0, %y : vector<8xf32>
  %2 = arith.cmpf ogt, %1, %y : vector<8xf32>
  %3 = arith.select %2, %1, %y : vector<8xi1>, vector<8xf32>
  %4 = arith.sitofp %ones : vector<8xi32> to vector<8xf32>
  %5 = arith.maxf %3, %4 : vector<8xf32>
  func.return %5 : vector<8xf32>
}
