// Gpu dialect: verifier errors on launches, kernels outside containers and bad shuffles.
// RUN: %compare %s --split-input-file --verify-diagnostics

func.func @no_container(%n: index) {
  // expected-error @+1 {{'gpu.launch_func' op expected the closest surrounding module to have the 'gpu.container_module' attribute}}
  gpu.launch_func @kernels::@k blocks in (%n, %n, %n) threads in (%n, %n, %n)
  return
}

// -----

module attributes {gpu.container_module} {
  func.func @missing_kernel(%n: index) {
    // expected-error @+1 {{'gpu.launch_func' op kernel container 'kernels' is undefined}}
    gpu.launch_func @kernels::@k blocks in (%n, %n, %n) threads in (%n, %n, %n)
    return
  }
}

// -----

func.func @bad_shuffle(%x: f32, %o: i32) {
  // expected-error @+1 {{'gpu.shuffle' op failed to verify that all of {value, shuffleResult} have same type}}
  %r, %v = "gpu.shuffle"(%x, %o, %o) <{mode = #gpu<shuffle_mode xor>}> : (f32, i32, i32) -> (i32, i1)
  return
}
