// Quant dialect: uniform and per-axis quantized types with qcast, dcast and scast.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --canonicalize
// RUN: %compare %s --lower-quant-ops

!q = !quant.uniform<i8:f32, 2.0:10>
!qa = !quant.uniform<i8:f32:1, {2.0:10, 3.0:20}>

func.func @quantize(%x: f32, %t: tensor<4xf32>) -> (f32, tensor<4xi8>) {
  %q = quant.qcast %x : f32 to !q
  %d = quant.dcast %q : !q to f32
  %qt = quant.qcast %t : tensor<4xf32> to tensor<4x!q>
  %s = quant.scast %qt : tensor<4x!q> to tensor<4xi8>
  return %d, %s : f32, tensor<4xi8>
}

func.func @per_axis(%t: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %q = quant.qcast %t : tensor<3x2xf32> to tensor<3x2x!qa>
  %d = quant.dcast %q : tensor<3x2x!qa> to tensor<3x2xf32>
  return %d : tensor<3x2xf32>
}

func.func private @types(!quant.uniform<u8<1:255>:f32, 0.5:128>, !quant.any<i8<-8:7>:f32>, !quant.calibrated<f32<-1.0:1.0>>)
