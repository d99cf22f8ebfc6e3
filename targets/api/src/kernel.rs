//! The C functions an accelerator's extern calls need, declared by the backend: the prototype
//! (named, typed parameters) every call is checked against and the generated header declares,
//! the address host JITs link, and the source and headers firmware output carries.

use crate::Error;

/// A C scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// `int8_t`.
    I8,
    /// `uint8_t`.
    U8,
    /// `int16_t`.
    I16,
    /// `uint16_t`.
    U16,
    /// `int32_t`.
    I32,
    /// `uint32_t`.
    U32,
    /// `int64_t`.
    I64,
    /// `uint64_t`.
    U64,
    /// `float`.
    F32,
    /// `double`.
    F64,
}

impl Scalar {
    /// Its C spelling.
    pub fn c(self) -> &'static str {
        match self {
            Scalar::I8 => "int8_t",
            Scalar::U8 => "uint8_t",
            Scalar::I16 => "int16_t",
            Scalar::U16 => "uint16_t",
            Scalar::I32 => "int32_t",
            Scalar::U32 => "uint32_t",
            Scalar::I64 => "int64_t",
            Scalar::U64 => "uint64_t",
            Scalar::F32 => "float",
            Scalar::F64 => "double",
        }
    }

    /// The C type holding elements of an MLIR element type (`i8`, `ui16`, `f32`, ...).
    pub fn of_mlir(element: &str) -> Option<Scalar> {
        Some(match element {
            "i8" => Scalar::I8,
            "ui8" => Scalar::U8,
            "i16" => Scalar::I16,
            "ui16" => Scalar::U16,
            "i32" => Scalar::I32,
            "ui32" => Scalar::U32,
            "i64" => Scalar::I64,
            "ui64" => Scalar::U64,
            "f32" => Scalar::F32,
            "f64" => Scalar::F64,
            _ => return None,
        })
    }
}

/// The C type of a kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CType {
    /// A scalar passed by value (`int32_t n`).
    Value(Scalar),
    /// A buffer the kernel reads: `const T *` (`None`: `const void *`).
    In(Option<Scalar>),
    /// A buffer the kernel writes: `T *` (`None`: `void *`).
    Out(Option<Scalar>),
}

impl CType {
    /// The declaration of a parameter `name` of this type: `const int8_t *input`.
    pub fn declare(self, name: &str) -> String {
        let pointee = |s: Option<Scalar>| s.map_or("void", Scalar::c);
        match self {
            CType::Value(s) => format!("{} {name}", s.c()),
            CType::In(s) => format!("const {} *{name}", pointee(s)),
            CType::Out(s) => format!("{} *{name}", pointee(s)),
        }
    }
}

/// One parameter of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its name in the prototype (and in [`crate::ExternCall::arg`]).
    pub name: &'static str,
    /// Its C type.
    pub ty: CType,
}

impl Param {
    /// A buffer of `element`s the kernel reads.
    pub const fn input(name: &'static str, element: Scalar) -> Self {
        Param { name, ty: CType::In(Some(element)) }
    }

    /// An `int32_t` passed by value.
    pub const fn int32(name: &'static str) -> Self {
        Param { name, ty: CType::Value(Scalar::I32) }
    }

    /// The buffer the kernel writes (`None`: its element type varies, `void *`).
    pub const fn output(name: &'static str, element: Option<Scalar>) -> Self {
        Param { name, ty: CType::Out(element) }
    }
}

/// A file shipped with firmware output, at a path relative to where it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// For a source, its file name (`vanilla.c`); for a header, the path `#include` names
    /// (`umac/vanilla.h`).
    pub path: &'static str,
    /// Its text (compiled into umac with `include_str!`, so an installed binary carries it).
    pub text: &'static str,
}

/// A C function an accelerator's calls need.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The C symbol.
    pub symbol: &'static str,
    /// Its parameters, in order: the inputs and scalars, then the output buffer.
    pub parameters: Vec<Param>,
    /// Its address in this process (the backend's crate compiles the source in), for host JITs.
    pub address: usize,
    /// Its C source.
    pub source: SourceFile,
    /// The headers the source includes.
    pub headers: Vec<SourceFile>,
}

impl Kernel {
    /// The C prototype: `void vanilla_conv2d_s8(const int8_t *input, ..., void *output);`.
    pub fn prototype(&self) -> String {
        let parameters: Vec<String> = self.parameters.iter().map(|p| p.ty.declare(p.name)).collect();
        format!("void {}({});", self.symbol, parameters.join(", "))
    }
}

/// What a call passes for one parameter, as legalization sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Passed {
    /// A buffer of MLIR element type `element` (`i8`) the kernel reads.
    Input(String),
    /// An `int32_t`.
    Int32,
    /// The result buffer, of MLIR element type `element`.
    Output(String),
}

/// Checks a call passing `passed` (named by `names`, the output last and unnamed) against
/// `kernel`'s prototype: the count, each name, and each type.
pub fn check_call(kernel: &Kernel, names: &[&str], passed: &[Passed]) -> Result<(), Error> {
    let expected: Vec<&str> = kernel.parameters.iter().map(|p| p.name).collect();
    if passed.len() != kernel.parameters.len() {
        return Err(Error::Invalid(format!(
            "{} takes {} parameters ({}), the call passes {} (the output last)",
            kernel.symbol,
            kernel.parameters.len(),
            expected.join(", "),
            passed.len()
        )));
    }
    for (index, (param, what)) in kernel.parameters.iter().zip(passed).enumerate() {
        if let Some(name) = names.get(index)
            && *name != param.name
        {
            return Err(Error::Invalid(format!(
                "argument #{index} of {} is named '{name}', the prototype's parameter #{index} is '{}'",
                kernel.symbol, param.name
            )));
        }
        let fits = match (what, param.ty) {
            (Passed::Int32, CType::Value(Scalar::I32)) => true,
            (Passed::Input(element), CType::In(pointee)) | (Passed::Output(element), CType::Out(pointee)) => {
                pointee.is_none() || pointee == Scalar::of_mlir(element)
            }
            _ => false,
        };
        if !fits {
            let given = match what {
                Passed::Input(e) => format!("a read-only buffer of {e}"),
                Passed::Int32 => "an int32_t".to_string(),
                Passed::Output(e) => format!("the output buffer of {e}"),
            };
            return Err(Error::Invalid(format!(
                "argument #{index} of {} passes {given}, the prototype says `{}`",
                kernel.symbol,
                param.ty.declare(param.name)
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel() -> Kernel {
        Kernel {
            symbol: "k",
            parameters: vec![Param::input("x", Scalar::I8), Param::int32("n"), Param::output("y", None)],
            address: 0,
            source: SourceFile { path: "k.c", text: "" },
            headers: vec![],
        }
    }

    #[test]
    fn prototypes() {
        assert_eq!(kernel().prototype(), "void k(const int8_t *x, int32_t n, void *y);");
        assert_eq!(CType::Out(Some(Scalar::I32)).declare("out"), "int32_t *out");
    }

    #[test]
    fn calls_are_checked_against_the_prototype() {
        let k = kernel();
        let check = |names: &[&str], passed: &[Passed]| check_call(&k, names, passed).map_err(|e| e.to_string());
        let good = [Passed::Input("i8".into()), Passed::Int32, Passed::Output("i32".into())];
        assert_eq!(check(&["x", "n"], &good), Ok(()));
        assert_eq!(
            check(&["x"], &good[..2]),
            Err("k takes 3 parameters (x, n, y), the call passes 2 (the output last)".into())
        );
        assert_eq!(
            check(&["x", "m"], &good),
            Err("argument #1 of k is named 'm', the prototype's parameter #1 is 'n'".into())
        );
        let wrong = [Passed::Input("i16".into()), Passed::Int32, Passed::Output("i8".into())];
        assert_eq!(
            check(&["x", "n"], &wrong),
            Err("argument #0 of k passes a read-only buffer of i16, the prototype says `const int8_t *x`".into())
        );
        let scalar_for_buffer = [Passed::Int32, Passed::Int32, Passed::Output("i8".into())];
        assert!(check(&["x", "n"], &scalar_for_buffer).is_err());
    }
}
