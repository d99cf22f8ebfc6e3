// RUN: umac-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(umac-tabulate-lookups))' | FileCheck %s

// Two int8 lookups of one index and their sum: the index, the largest of clamp(x, 0, 2), takes
// three values (0, 1, 2), so the chain is a table of three: t0 is the identity, t1 halves
// (rounding down), the sum m + floor(m / 2) is 0, 1 and 3. The lookup is an elementwise
// linalg.generic over the index (widened to i32; no offset, its range starts at 0).
// CHECK-LABEL: func.func @two_lookups(
// CHECK-NOT: tosa.table
// CHECK: %[[M:.*]] = tosa.reduce_max
// CHECK: %[[T:.*]] = arith.constant dense<[0, 1, 3]> : tensor<3xi8>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x1xi8>
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%[[M]] : tensor<1x1xi8>) outs(%[[E]] : tensor<1x1xi8>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT: %[[W:.*]] = arith.extsi %[[IN]] : i8 to i32
// CHECK-NEXT: %[[P:.*]] = arith.index_cast %[[W]] : i32 to index
// CHECK-NEXT: %[[V:.*]] = tensor.extract %[[T]][%[[P]]] : tensor<3xi8>
// CHECK-NEXT: linalg.yield %[[V]] : i8
// CHECK-NOT: tosa.table
// CHECK-NOT: tosa.add
// CHECK: return %[[Y]]
func.func @two_lookups(%x: tensor<1x4xi8>) -> tensor<1x1xi8> {
  %t0 = "tosa.const"() <{values = dense<[-128, -127, -126, -125, -124, -123, -122, -121, -120, -119, -118, -117, -116, -115, -114, -113, -112, -111, -110, -109, -108, -107, -106, -105, -104, -103, -102, -101, -100, -99, -98, -97, -96, -95, -94, -93, -92, -91, -90, -89, -88, -87, -86, -85, -84, -83, -82, -81, -80, -79, -78, -77, -76, -75, -74, -73, -72, -71, -70, -69, -68, -67, -66, -65, -64, -63, -62, -61, -60, -59, -58, -57, -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127]> : tensor<256xi8>}> : () -> tensor<256xi8>
  %t1 = "tosa.const"() <{values = dense<[-64, -64, -63, -63, -62, -62, -61, -61, -60, -60, -59, -59, -58, -58, -57, -57, -56, -56, -55, -55, -54, -54, -53, -53, -52, -52, -51, -51, -50, -50, -49, -49, -48, -48, -47, -47, -46, -46, -45, -45, -44, -44, -43, -43, -42, -42, -41, -41, -40, -40, -39, -39, -38, -38, -37, -37, -36, -36, -35, -35, -34, -34, -33, -33, -32, -32, -31, -31, -30, -30, -29, -29, -28, -28, -27, -27, -26, -26, -25, -25, -24, -24, -23, -23, -22, -22, -21, -21, -20, -20, -19, -19, -18, -18, -17, -17, -16, -16, -15, -15, -14, -14, -13, -13, -12, -12, -11, -11, -10, -10, -9, -9, -8, -8, -7, -7, -6, -6, -5, -5, -4, -4, -3, -3, -2, -2, -1, -1, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18, 19, 19, 20, 20, 21, 21, 22, 22, 23, 23, 24, 24, 25, 25, 26, 26, 27, 27, 28, 28, 29, 29, 30, 30, 31, 31, 32, 32, 33, 33, 34, 34, 35, 35, 36, 36, 37, 37, 38, 38, 39, 39, 40, 40, 41, 41, 42, 42, 43, 43, 44, 44, 45, 45, 46, 46, 47, 47, 48, 48, 49, 49, 50, 50, 51, 51, 52, 52, 53, 53, 54, 54, 55, 55, 56, 56, 57, 57, 58, 58, 59, 59, 60, 60, 61, 61, 62, 62, 63, 63]> : tensor<256xi8>}> : () -> tensor<256xi8>
  %c = tosa.clamp %x {max_val = 2 : i8, min_val = 0 : i8} : (tensor<1x4xi8>) -> tensor<1x4xi8>
  %m = tosa.reduce_max %c {axis = 1 : i32} : (tensor<1x4xi8>) -> tensor<1x1xi8>
  %a = tosa.table %m, %t0 : (tensor<1x1xi8>, tensor<256xi8>) -> tensor<1x1xi8>
  %b = tosa.table %m, %t1 : (tensor<1x1xi8>, tensor<256xi8>) -> tensor<1x1xi8>
  %s = tosa.add %a, %b : (tensor<1x1xi8>, tensor<1x1xi8>) -> tensor<1x1xi8>
  return %s : tensor<1x1xi8>
}

// -----

// Softmax's exponential as TFLite legalizes it, with flat int16 tables (every entry 1): the
// index, x - max(x) of int8 values widened to int32 (zero point 3), lies in [-255, 0] (never
// positive: x less its own maximum): 256 entries, looked up at d + 255. Each interpolated lookup gives 1 << 7 = 128; the sum of 128 << 17
// and 128 << 9 is 16842752 for every entry. The rounding shift after the sum stays: the final
// multiply reads the sum too.
// CHECK-LABEL: func.func @softmax_exp(
// CHECK: %[[D:.*]] = tosa.sub %{{.*}}, %{{.*}} : (tensor<1x12xi32>, tensor<1x1xi32>) -> tensor<1x12xi32>
// CHECK: %[[T:.*]] = arith.constant dense<16842752> : tensor<256xi32>
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[D]] : tensor<1x12xi32>)
// CHECK: %[[LO:.*]] = arith.constant -255 : i32
// CHECK-NEXT: %[[K:.*]] = arith.subi %{{.*}}, %[[LO]] : i32
// CHECK-NEXT: %[[P:.*]] = arith.index_cast %[[K]] : i32 to index
// CHECK-NEXT: tensor.extract %[[T]][%[[P]]] : tensor<256xi32>
// CHECK-NOT: tosa.table
// CHECK: %[[R:.*]] = tosa.arithmetic_right_shift %[[E]], %{{.*}} {round = true}
// CHECK: tosa.reduce_sum %[[R]]
// CHECK: tosa.mul %[[E]]
func.func @softmax_exp(%x: tensor<1x12xi8>) -> (tensor<1x1xi32>, tensor<1x12xi32>) {
  %one = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s30 = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s23 = "tosa.const"() <{values = dense<23> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp3 = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %zp16 = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %table = "tosa.const"() <{values = dense<1> : tensor<513xi16>}> : () -> tensor<513xi16>
  %c17 = "tosa.const"() <{values = dense<17> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %c9 = "tosa.const"() <{values = dense<9> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %c12 = "tosa.const"() <{values = dense<12> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %w = tosa.rescale %x, %one, %s30, %zp3, %zp32 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x12xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<1x12xi32>
  %max = tosa.reduce_max %w {axis = 1 : i32} : (tensor<1x12xi32>) -> tensor<1x1xi32>
  %d = tosa.sub %w, %max : (tensor<1x12xi32>, tensor<1x1xi32>) -> tensor<1x12xi32>
  %i = tosa.rescale %d, %one, %s23, %zp32, %zp16 {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x12xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi16>) -> tensor<1x12xi16>
  %a = tosa.table %i, %table : (tensor<1x12xi16>, tensor<513xi16>) -> tensor<1x12xi32>
  %b = tosa.table %i, %table : (tensor<1x12xi16>, tensor<513xi16>) -> tensor<1x12xi32>
  %sa = tosa.logical_left_shift %a, %c17 : (tensor<1x12xi32>, tensor<1x1xi32>) -> tensor<1x12xi32>
  %sb = tosa.logical_left_shift %b, %c9 : (tensor<1x12xi32>, tensor<1x1xi32>) -> tensor<1x12xi32>
  %e = tosa.add %sa, %sb : (tensor<1x12xi32>, tensor<1x12xi32>) -> tensor<1x12xi32>
  %r = tosa.arithmetic_right_shift %e, %c12 {round = true} : (tensor<1x12xi32>, tensor<1x1xi32>) -> tensor<1x12xi32>
  %sum = tosa.reduce_sum %r {axis = 1 : i32} : (tensor<1x12xi32>) -> tensor<1x1xi32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.mul %e, %sum, %shift : (tensor<1x12xi32>, tensor<1x1xi32>, tensor<1xi8>) -> tensor<1x12xi32>
  return %sum, %y : tensor<1x1xi32>, tensor<1x12xi32>
}

// -----

// One lookup alone stays: a table of its index would be no fewer lookups.
// CHECK-LABEL: func.func @one_lookup(
// CHECK: tosa.table
// CHECK-NOT: linalg.generic
func.func @one_lookup(%x: tensor<1x4xi8>) -> tensor<1x4xi8> {
  %t0 = "tosa.const"() <{values = dense<[-128, -127, -126, -125, -124, -123, -122, -121, -120, -119, -118, -117, -116, -115, -114, -113, -112, -111, -110, -109, -108, -107, -106, -105, -104, -103, -102, -101, -100, -99, -98, -97, -96, -95, -94, -93, -92, -91, -90, -89, -88, -87, -86, -85, -84, -83, -82, -81, -80, -79, -78, -77, -76, -75, -74, -73, -72, -71, -70, -69, -68, -67, -66, -65, -64, -63, -62, -61, -60, -59, -58, -57, -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127]> : tensor<256xi8>}> : () -> tensor<256xi8>
  %a = tosa.table %x, %t0 : (tensor<1x4xi8>, tensor<256xi8>) -> tensor<1x4xi8>
  return %a : tensor<1x4xi8>
}

// -----

// A lookup's result read outside the chain (returned) keeps the chain: its ops would stay anyway.
// CHECK-LABEL: func.func @read_outside(
// CHECK-COUNT-2: tosa.table
// CHECK-NOT: linalg.generic
func.func @read_outside(%x: tensor<1x4xi8>) -> (tensor<1x4xi8>, tensor<1x4xi8>) {
  %t0 = "tosa.const"() <{values = dense<[-128, -127, -126, -125, -124, -123, -122, -121, -120, -119, -118, -117, -116, -115, -114, -113, -112, -111, -110, -109, -108, -107, -106, -105, -104, -103, -102, -101, -100, -99, -98, -97, -96, -95, -94, -93, -92, -91, -90, -89, -88, -87, -86, -85, -84, -83, -82, -81, -80, -79, -78, -77, -76, -75, -74, -73, -72, -71, -70, -69, -68, -67, -66, -65, -64, -63, -62, -61, -60, -59, -58, -57, -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127]> : tensor<256xi8>}> : () -> tensor<256xi8>
  %t1 = "tosa.const"() <{values = dense<[-64, -64, -63, -63, -62, -62, -61, -61, -60, -60, -59, -59, -58, -58, -57, -57, -56, -56, -55, -55, -54, -54, -53, -53, -52, -52, -51, -51, -50, -50, -49, -49, -48, -48, -47, -47, -46, -46, -45, -45, -44, -44, -43, -43, -42, -42, -41, -41, -40, -40, -39, -39, -38, -38, -37, -37, -36, -36, -35, -35, -34, -34, -33, -33, -32, -32, -31, -31, -30, -30, -29, -29, -28, -28, -27, -27, -26, -26, -25, -25, -24, -24, -23, -23, -22, -22, -21, -21, -20, -20, -19, -19, -18, -18, -17, -17, -16, -16, -15, -15, -14, -14, -13, -13, -12, -12, -11, -11, -10, -10, -9, -9, -8, -8, -7, -7, -6, -6, -5, -5, -4, -4, -3, -3, -2, -2, -1, -1, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18, 19, 19, 20, 20, 21, 21, 22, 22, 23, 23, 24, 24, 25, 25, 26, 26, 27, 27, 28, 28, 29, 29, 30, 30, 31, 31, 32, 32, 33, 33, 34, 34, 35, 35, 36, 36, 37, 37, 38, 38, 39, 39, 40, 40, 41, 41, 42, 42, 43, 43, 44, 44, 45, 45, 46, 46, 47, 47, 48, 48, 49, 49, 50, 50, 51, 51, 52, 52, 53, 53, 54, 54, 55, 55, 56, 56, 57, 57, 58, 58, 59, 59, 60, 60, 61, 61, 62, 62, 63, 63]> : tensor<256xi8>}> : () -> tensor<256xi8>
  %a = tosa.table %x, %t0 : (tensor<1x4xi8>, tensor<256xi8>) -> tensor<1x4xi8>
  %b = tosa.table %x, %t1 : (tensor<1x4xi8>, tensor<256xi8>) -> tensor<1x4xi8>
  %s = tosa.sub %a, %b : (tensor<1x4xi8>, tensor<1x4xi8>) -> tensor<1x4xi8>
  return %s, %a : tensor<1x4xi8>, tensor<1x4xi8>
}

// -----

// An int16 index of every value (65536 entries, more than the two tables' 2052 bytes hold) stays.
// CHECK-LABEL: func.func @wide_index(
// CHECK-COUNT-2: tosa.table
// CHECK-NOT: linalg.generic
func.func @wide_index(%x: tensor<1x4xi16>) -> tensor<1x4xi32> {
  %t = "tosa.const"() <{values = dense<1> : tensor<513xi16>}> : () -> tensor<513xi16>
  %a = tosa.table %x, %t : (tensor<1x4xi16>, tensor<513xi16>) -> tensor<1x4xi32>
  %b = tosa.table %x, %t : (tensor<1x4xi16>, tensor<513xi16>) -> tensor<1x4xi32>
  %s = tosa.add %a, %b : (tensor<1x4xi32>, tensor<1x4xi32>) -> tensor<1x4xi32>
  return %s : tensor<1x4xi32>
}

// -----

// x - min(x) is never negative: with x = clamp(x, 0, 2) the index lies in [0, 2] (interval
// arithmetic alone would give [-2, 2]), the same three entries as @two_lookups.
// CHECK-LABEL: func.func @less_minimum(
// CHECK: %[[D:.*]] = tosa.sub
// CHECK: arith.constant dense<[0, 1, 3]> : tensor<3xi8>
// CHECK: linalg.generic {{.*}} ins(%[[D]] : tensor<1x4xi8>)
// CHECK-NOT: arith.subi
// CHECK: tensor.extract
func.func @less_minimum(%x: tensor<1x4xi8>) -> tensor<1x4xi8> {
  %t0 = "tosa.const"() <{values = dense<[-128, -127, -126, -125, -124, -123, -122, -121, -120, -119, -118, -117, -116, -115, -114, -113, -112, -111, -110, -109, -108, -107, -106, -105, -104, -103, -102, -101, -100, -99, -98, -97, -96, -95, -94, -93, -92, -91, -90, -89, -88, -87, -86, -85, -84, -83, -82, -81, -80, -79, -78, -77, -76, -75, -74, -73, -72, -71, -70, -69, -68, -67, -66, -65, -64, -63, -62, -61, -60, -59, -58, -57, -56, -55, -54, -53, -52, -51, -50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127]> : tensor<256xi8>}> : () -> tensor<256xi8>
  %t1 = "tosa.const"() <{values = dense<[-64, -64, -63, -63, -62, -62, -61, -61, -60, -60, -59, -59, -58, -58, -57, -57, -56, -56, -55, -55, -54, -54, -53, -53, -52, -52, -51, -51, -50, -50, -49, -49, -48, -48, -47, -47, -46, -46, -45, -45, -44, -44, -43, -43, -42, -42, -41, -41, -40, -40, -39, -39, -38, -38, -37, -37, -36, -36, -35, -35, -34, -34, -33, -33, -32, -32, -31, -31, -30, -30, -29, -29, -28, -28, -27, -27, -26, -26, -25, -25, -24, -24, -23, -23, -22, -22, -21, -21, -20, -20, -19, -19, -18, -18, -17, -17, -16, -16, -15, -15, -14, -14, -13, -13, -12, -12, -11, -11, -10, -10, -9, -9, -8, -8, -7, -7, -6, -6, -5, -5, -4, -4, -3, -3, -2, -2, -1, -1, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18, 19, 19, 20, 20, 21, 21, 22, 22, 23, 23, 24, 24, 25, 25, 26, 26, 27, 27, 28, 28, 29, 29, 30, 30, 31, 31, 32, 32, 33, 33, 34, 34, 35, 35, 36, 36, 37, 37, 38, 38, 39, 39, 40, 40, 41, 41, 42, 42, 43, 43, 44, 44, 45, 45, 46, 46, 47, 47, 48, 48, 49, 49, 50, 50, 51, 51, 52, 52, 53, 53, 54, 54, 55, 55, 56, 56, 57, 57, 58, 58, 59, 59, 60, 60, 61, 61, 62, 62, 63, 63]> : tensor<256xi8>}> : () -> tensor<256xi8>
  %c = tosa.clamp %x {max_val = 2 : i8, min_val = 0 : i8} : (tensor<1x4xi8>) -> tensor<1x4xi8>
  %m = tosa.reduce_min %c {axis = 1 : i32} : (tensor<1x4xi8>) -> tensor<1x1xi8>
  %d = tosa.sub %c, %m : (tensor<1x4xi8>, tensor<1x1xi8>) -> tensor<1x4xi8>
  %a = tosa.table %d, %t0 : (tensor<1x4xi8>, tensor<256xi8>) -> tensor<1x4xi8>
  %b = tosa.table %d, %t1 : (tensor<1x4xi8>, tensor<256xi8>) -> tensor<1x4xi8>
  %s = tosa.add %a, %b : (tensor<1x4xi8>, tensor<1x4xi8>) -> tensor<1x4xi8>
  return %s : tensor<1x4xi8>
}

// -----

// An index less a constant of several values (no reduction): the analysis bounds the difference
// by nothing narrower than int8, so the table has all 256 int8 indices, from -128 (halves plus
// quarters of them, -96 to 94, all defined).
// CHECK-LABEL: func.func @less_constant(
// CHECK: %[[D:.*]] = tosa.sub
// CHECK: arith.constant dense<{{.*}}> : tensor<256xi8>
// CHECK: linalg.generic {{.*}} ins(%[[D]] : tensor<1x4xi8>)
// CHECK: arith.constant -128 : i32
func.func @less_constant(%x: tensor<1x4xi8>) -> tensor<1x4xi8> {
  %t0 = "tosa.const"() <{values = dense<[-64, -64, -63, -63, -62, -62, -61, -61, -60, -60, -59, -59, -58, -58, -57, -57, -56, -56, -55, -55, -54, -54, -53, -53, -52, -52, -51, -51, -50, -50, -49, -49, -48, -48, -47, -47, -46, -46, -45, -45, -44, -44, -43, -43, -42, -42, -41, -41, -40, -40, -39, -39, -38, -38, -37, -37, -36, -36, -35, -35, -34, -34, -33, -33, -32, -32, -31, -31, -30, -30, -29, -29, -28, -28, -27, -27, -26, -26, -25, -25, -24, -24, -23, -23, -22, -22, -21, -21, -20, -20, -19, -19, -18, -18, -17, -17, -16, -16, -15, -15, -14, -14, -13, -13, -12, -12, -11, -11, -10, -10, -9, -9, -8, -8, -7, -7, -6, -6, -5, -5, -4, -4, -3, -3, -2, -2, -1, -1, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18, 19, 19, 20, 20, 21, 21, 22, 22, 23, 23, 24, 24, 25, 25, 26, 26, 27, 27, 28, 28, 29, 29, 30, 30, 31, 31, 32, 32, 33, 33, 34, 34, 35, 35, 36, 36, 37, 37, 38, 38, 39, 39, 40, 40, 41, 41, 42, 42, 43, 43, 44, 44, 45, 45, 46, 46, 47, 47, 48, 48, 49, 49, 50, 50, 51, 51, 52, 52, 53, 53, 54, 54, 55, 55, 56, 56, 57, 57, 58, 58, 59, 59, 60, 60, 61, 61, 62, 62, 63, 63]> : tensor<256xi8>}> : () -> tensor<256xi8>
  %t1 = "tosa.const"() <{values = dense<[-32, -32, -32, -32, -31, -31, -31, -31, -30, -30, -30, -30, -29, -29, -29, -29, -28, -28, -28, -28, -27, -27, -27, -27, -26, -26, -26, -26, -25, -25, -25, -25, -24, -24, -24, -24, -23, -23, -23, -23, -22, -22, -22, -22, -21, -21, -21, -21, -20, -20, -20, -20, -19, -19, -19, -19, -18, -18, -18, -18, -17, -17, -17, -17, -16, -16, -16, -16, -15, -15, -15, -15, -14, -14, -14, -14, -13, -13, -13, -13, -12, -12, -12, -12, -11, -11, -11, -11, -10, -10, -10, -10, -9, -9, -9, -9, -8, -8, -8, -8, -7, -7, -7, -7, -6, -6, -6, -6, -5, -5, -5, -5, -4, -4, -4, -4, -3, -3, -3, -3, -2, -2, -2, -2, -1, -1, -1, -1, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 10, 11, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15, 15, 16, 16, 16, 16, 17, 17, 17, 17, 18, 18, 18, 18, 19, 19, 19, 19, 20, 20, 20, 20, 21, 21, 21, 21, 22, 22, 22, 22, 23, 23, 23, 23, 24, 24, 24, 24, 25, 25, 25, 25, 26, 26, 26, 26, 27, 27, 27, 27, 28, 28, 28, 28, 29, 29, 29, 29, 30, 30, 30, 30, 31, 31, 31, 31]> : tensor<256xi8>}> : () -> tensor<256xi8>
  %k = "tosa.const"() <{values = dense<[[0, 1, 2, 3]]> : tensor<1x4xi8>}> : () -> tensor<1x4xi8>
  %d = tosa.sub %x, %k : (tensor<1x4xi8>, tensor<1x4xi8>) -> tensor<1x4xi8>
  %a = tosa.table %d, %t0 : (tensor<1x4xi8>, tensor<256xi8>) -> tensor<1x4xi8>
  %b = tosa.table %d, %t1 : (tensor<1x4xi8>, tensor<256xi8>) -> tensor<1x4xi8>
  %s = tosa.add %a, %b : (tensor<1x4xi8>, tensor<1x4xi8>) -> tensor<1x4xi8>
  return %s : tensor<1x4xi8>
}
