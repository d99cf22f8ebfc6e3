// Vector ISA dialects: arm_neon, arm_sve, arm_sme, amx and x86vector ops on fixed and scalable vectors.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --convert-vector-to-llvm="enable-x86vector enable-arm-neon enable-arm-sve enable-amx"

func.func @neon(%a: vector<2xi32>, %b: vector<2xi32>, %acc: vector<4xi32>, %x: vector<16xi8>, %y: vector<16xi8>) -> (vector<2xi64>, vector<4xi32>) {
  %0 = arm_neon.intr.smull %a, %b : vector<2xi32> to vector<2xi64>
  %1 = arm_neon.intr.smmla %acc, %x, %y : vector<16xi8> to vector<4xi32>
  return %0, %1 : vector<2xi64>, vector<4xi32>
}

func.func @sve(%a: vector<[4]xi32>, %b: vector<[4]xi32>, %m: vector<[4]xi1>, %x: vector<[16]xi8>) -> (vector<[4]xi32>, vector<[4]xi32>) {
  %0 = arm_sve.masked.addi %m, %a, %b : vector<[4]xi1>, vector<[4]xi32>
  %1 = arm_sve.sdot %a, %x, %x : vector<[16]xi8> to vector<[4]xi32>
  return %0, %1 : vector<[4]xi32>, vector<[4]xi32>
}

func.func @sme(%s: vector<[4]xf32>, %i: index) {
  %t = arm_sme.get_tile : vector<[4]x[4]xf32>
  %z = arm_sme.zero : vector<[4]x[4]xf32>
  %o = arm_sme.outerproduct %s, %s acc(%z) : vector<[4]xf32>, vector<[4]xf32>
  %r = arm_sme.insert_tile_slice %s, %o[%i] : vector<[4]xf32> into vector<[4]x[4]xf32>
  return
}

func.func @amx(%buf: memref<16x64xbf16>, %out: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %a = amx.tile_load %buf[%c0, %c0] : memref<16x64xbf16> into !amx.tile<16x32xbf16>
  %z = amx.tile_zero : !amx.tile<16x16xf32>
  %m = amx.tile_mulf %a, %a, %z : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
  amx.tile_store %out[%c0, %c0], %m : memref<16x16xf32>, !amx.tile<16x16xf32>
  return
}

func.func @x86(%a: vector<16xf32>, %k: vector<16xi1>, %v8: vector<8xf32>) -> (vector<16xf32>, vector<8xf32>) {
  %0 = x86vector.avx512.mask.compress %k, %a : vector<16xf32>
  %1 = x86vector.avx.rsqrt %v8 : vector<8xf32>
  return %0, %1 : vector<16xf32>, vector<8xf32>
}
