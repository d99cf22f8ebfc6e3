//! MLIR objects as Rust strings, never failing.
//!
//! melior's `Display` impls return a formatting error when MLIR prints bytes that are not UTF-8
//! (a string attribute from a damaged bytecode file, say), and `to_string()`/`format!` turn that
//! into a panic. Diagnostics must never panic, so everything user-facing prints through here,
//! with invalid UTF-8 replaced.

use melior::ir::{Attribute, AttributeLike, Type, TypeLike};
use mlir_sys::{MlirStringRef, mlirAttributePrint, mlirTypePrint};
use std::ffi::c_void;

/// A C API print callback that appends to the `Vec<u8>` passed as user data.
///
/// # Safety
/// `data` must point at a live `Vec<u8>`.
pub unsafe extern "C" fn collect(text: MlirStringRef, data: *mut c_void) {
    if text.data.is_null() || data.is_null() {
        return;
    }
    // SAFETY: `data` is the Vec handed to the print call below, alive for that call; `text`
    // points at `length` bytes for the duration of this callback.
    unsafe {
        let bytes = std::slice::from_raw_parts(text.data.cast::<u8>(), text.length);
        (*data.cast::<Vec<u8>>()).extend_from_slice(bytes);
    }
}

pub(crate) fn lossy(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// An attribute in MLIR syntax.
pub fn attribute_text(attribute: Attribute) -> String {
    let mut bytes = Vec::new();
    // SAFETY: the attribute is alive; `collect` appends to `bytes`.
    unsafe { mlirAttributePrint(attribute.to_raw(), Some(collect), (&mut bytes as *mut Vec<u8>).cast()) };
    lossy(bytes)
}

/// A type in MLIR syntax.
pub fn type_text(r#type: Type) -> String {
    let mut bytes = Vec::new();
    // SAFETY: the type is alive; `collect` appends to `bytes`.
    unsafe { mlirTypePrint(r#type.to_raw(), Some(collect), (&mut bytes as *mut Vec<u8>).cast()) };
    lossy(bytes)
}

/// A string slice as the C API's string reference (borrowed: valid while `s` is).
pub fn str_ref(s: &(impl AsRef<[u8]> + ?Sized)) -> mlir_sys::MlirStringRef {
    let bytes = s.as_ref();
    mlir_sys::MlirStringRef { data: bytes.as_ptr().cast(), length: bytes.len() }
}

/// A C API string reference as an owned string (invalid UTF-8 replaced).
pub fn string_from(s: mlir_sys::MlirStringRef) -> String {
    if s.data.is_null() {
        return String::new();
    }
    // SAFETY: MLIR string refs point at `length` bytes that outlive this call.
    let bytes = unsafe { std::slice::from_raw_parts(s.data.cast::<u8>(), s.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// `x` as an MLIR float literal that reads back as the same `f32`: the shortest decimal, with the
/// point MLIR's grammar needs (`1.0e-7`, not `1e-7`; `10.0`, not `10`).
pub fn float_literal(x: f32) -> String {
    let text = format!("{x:?}");
    if text.contains('.') || !x.is_finite() {
        return text;
    }
    match text.split_once('e') {
        Some((mantissa, exponent)) => format!("{mantissa}.0e{exponent}"),
        None => format!("{text}.0"),
    }
}

#[cfg(test)]
mod float_tests {
    use super::float_literal;

    #[test]
    fn floats_are_mlir_literals() {
        assert_eq!(float_literal(1.0), "1.0");
        assert_eq!(float_literal(10.0), "10.0");
        assert_eq!(float_literal(1e-7), "1.0e-7");
        assert_eq!(float_literal(6.1035156e-5), "6.1035156e-5");
        assert_eq!(float_literal(0.026880411), "0.026880411");
        for x in [0.026880411f32, 6.1035156e-5, 1e-7, 3.0e20, 0.0045024] {
            assert_eq!(float_literal(x).parse::<f32>().unwrap().to_bits(), x.to_bits());
        }
    }
}
