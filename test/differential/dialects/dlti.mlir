// Dlti dialect: data layout specs, target system and device specs, and map attributes.
// RUN: %compare %s
// RUN: %compare %s --mlir-print-op-generic
// RUN: %compare %s --emit-bytecode -o out.mlirbc
// RUN: %compare %s --test-data-layout-query

#layout = #dlti.dl_spec<
  #dlti.dl_entry<i32, dense<[32, 64]> : vector<2xi64>>,
  #dlti.dl_entry<index, 64 : i64>,
  #dlti.dl_entry<"dlti.endianness", "little">,
  #dlti.dl_entry<"dlti.stack_alignment", 128 : i64>>

module attributes {
  dlti.dl_spec = #layout,
  dlti.target_system_spec = #dlti.target_system_spec<
    "CPU" = #dlti.target_device_spec<"L1_cache_size_in_bytes" = 4096 : i64>,
    "GPU" = #dlti.target_device_spec<"max_vector_op_width" = 128 : i64>>,
  test.map = #dlti.map<"key" = 1 : i32, "nested" = #dlti.map<"inner" = "v">>
} {
  func.func @query(%a: i32, %b: index) -> i32 {
    %0 = "test.data_layout_query"() : () -> i32
    return %0 : i32
  }
}
