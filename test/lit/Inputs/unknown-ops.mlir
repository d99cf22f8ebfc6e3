func.func @custom() {
  %0 = tosa.frobnicate : i32
}
// -----
func.func @generic() {
  %0 = "tosa.frobnicate"() : () -> i32
}
// -----
func.func @foreign() {
  %0 = "mydialect.op"() : () -> i32
  return
}
