// Quant dialect: verifier errors on quantized types and casts.
// RUN: %compare %s --split-input-file --verify-diagnostics

func.func @bad_qcast(%x: f64) {
  // expected-error @+1 {{expressed type in quantized type expected to match float type}}
  %0 = quant.qcast %x : f64 to !quant.uniform<i8:f32, 1.0>
  return
}

// -----

// expected-error @+1 {{illegal storage type minimum: -200}}
func.func private @bad_type(!quant.uniform<i8<-200:127>:f32, 1.0>)
