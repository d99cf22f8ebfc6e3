//! Each op's attributes from the flatbuffer's attribute table, as TOSA MLIR writes them.

use super::{element, schema::tosa::AttributeRef};
use crate::{
    Error,
    emit::{Value, float},
};

fn list(values: &[i64]) -> String {
    values.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

fn malformed(e: planus::Error) -> Error {
    Error::model(format!("malformed attributes: {e}"))
}

fn ints(vector: planus::Result<Option<planus::Vector<'_, i32>>>) -> Result<Vec<i64>, Error> {
    Ok(vector.map_err(malformed)?.into_iter().flatten().map(i64::from).collect())
}

fn acc_type(code: u32) -> Result<&'static str, Error> {
    element(code).ok_or_else(|| Error::unsupported(format!("accumulator type code {code} is not one umac takes")))
}

fn nan_mode(code: u32) -> Result<&'static str, Error> {
    match code {
        0 | 1 => Ok(""),
        2 => Ok(", nan_mode = #tosa.nan_mode<IGNORE>"),
        other => Err(Error::model(format!("NaN propagation mode {other} is unknown"))),
    }
}

/// A clamp bound of `elem` from its little-endian bytes.
fn bound(bytes: Option<&[u8]>, elem: &str) -> Result<String, Error> {
    let bytes = bytes.unwrap_or_default();
    let int = |n: usize| -> Result<i64, Error> {
        let raw = bytes
            .get(..n)
            .ok_or_else(|| Error::model(format!("a clamp bound has {} bytes for {elem}", bytes.len())))?;
        let mut value = 0i64;
        for (i, &b) in raw.iter().enumerate() {
            value |= i64::from(b) << (8 * i);
        }
        let shift = 64 - 8 * n as u32;
        Ok((value << shift) >> shift)
    };
    Ok(match elem {
        "i8" => format!("{} : i8", int(1)?),
        "i16" => format!("{} : i16", int(2)?),
        "i32" => format!("{} : i32", int(4)?),
        "f32" => format!("{} : f32", float(f32::from_bits(int(4)? as u32))),
        other => return Err(Error::unsupported(format!("umac does not read clamp bounds of {other}"))),
    })
}

/// The attribute text of op `name` (TOSA's name, `CONV2D`) whose operands are `operands`.
pub(super) fn attributes(name: &str, attribute: Option<AttributeRef>, operands: &[Value]) -> Result<String, Error> {
    let e = malformed;
    let Some(attribute) = attribute else {
        return match name {
            "CONV2D" | "CONV3D" | "DEPTHWISE_CONV2D" | "TRANSPOSE_CONV2D" | "AVG_POOL2D" | "MAX_POOL2D" | "CLAMP"
            | "RESCALE" | "TRANSPOSE" | "RESIZE" | "ARGMAX" | "CONCAT" | "REVERSE" | "CUSTOM" | "REDUCE_ALL"
            | "REDUCE_ANY" | "REDUCE_MAX" | "REDUCE_MIN" | "REDUCE_PRODUCT" | "REDUCE_SUM" => {
                Err(Error::model("its attributes are missing".into()))
            }
            _ => Ok(String::new()),
        };
    };
    Ok(match attribute {
        AttributeRef::Conv2d(a) | AttributeRef::Conv3d(a) | AttributeRef::DepthwiseConv2d(a) => {
            let local_bound = if a.local_bound().map_err(e)? { ", local_bound = true" } else { "" };
            format!(
                "acc_type = {}, dilation = array<i64: {}>, pad = array<i64: {}>, stride = array<i64: {}>{local_bound}",
                acc_type(a.acc_type().map_err(e)?)?,
                list(&ints(a.dilation())?),
                list(&ints(a.pad())?),
                list(&ints(a.stride())?)
            )
        }
        AttributeRef::TransposeConv2d(a) => {
            let local_bound = if a.local_bound().map_err(e)? { ", local_bound = true" } else { "" };
            format!(
                "acc_type = {}, out_pad = array<i64: {}>, stride = array<i64: {}>{local_bound}",
                acc_type(a.acc_type().map_err(e)?)?,
                list(&ints(a.out_pad())?),
                list(&ints(a.stride())?)
            )
        }
        AttributeRef::AvgPool2d(a) => format!(
            "acc_type = {}, kernel = array<i64: {}>, pad = array<i64: {}>, stride = array<i64: {}>",
            acc_type(a.acc_type().map_err(e)?)?,
            list(&ints(a.kernel())?),
            list(&ints(a.pad())?),
            list(&ints(a.stride())?)
        ),
        AttributeRef::MaxPool2d(a) => format!(
            "kernel = array<i64: {}>, pad = array<i64: {}>, stride = array<i64: {}>{}",
            list(&ints(a.kernel())?),
            list(&ints(a.pad())?),
            list(&ints(a.stride())?),
            nan_mode(a.nan_mode().map_err(e)?)?
        ),
        AttributeRef::Clamp(a) => {
            let elem = operands.first().map(|v| v.ty.elem).ok_or_else(|| Error::model("it has no input".into()))?;
            format!(
                "max_val = {}, min_val = {}{}",
                bound(a.max_val().map_err(e)?, elem)?,
                bound(a.min_val().map_err(e)?, elem)?,
                nan_mode(a.nan_mode().map_err(e)?)?
            )
        }
        AttributeRef::ArithmeticRightShift(a) => format!("round = {}", a.round().map_err(e)?),
        AttributeRef::Maximum(a) | AttributeRef::Minimum(a) => {
            nan_mode(a.nan_mode().map_err(e)?)?.trim_start_matches(", ").to_string()
        }
        AttributeRef::ReduceAll(a)
        | AttributeRef::ReduceAny(a)
        | AttributeRef::ReduceProduct(a)
        | AttributeRef::ReduceSum(a)
        | AttributeRef::Concat(a)
        | AttributeRef::Reverse(a) => format!("axis = {} : i32", a.axis().map_err(e)?),
        AttributeRef::ArgMax(a) | AttributeRef::ReduceMax(a) | AttributeRef::ReduceMin(a) => {
            format!("axis = {} : i32{}", a.axis().map_err(e)?, nan_mode(a.nan_mode().map_err(e)?)?)
        }
        AttributeRef::Transpose(a) => format!("perms = array<i32: {}>", list(&ints(a.perms())?)),
        AttributeRef::Resize(a) => match a.mode().map_err(e)? {
            1 => "mode = NEAREST_NEIGHBOR".to_string(),
            2 => "mode = BILINEAR".to_string(),
            other => return Err(Error::model(format!("resize mode {other} is unknown"))),
        },
        AttributeRef::Rescale(a) => {
            let rounding = match a.rounding_mode().map_err(e)? {
                1 => "SINGLE_ROUND",
                2 => "INEXACT_ROUND",
                3 => "DOUBLE_ROUND",
                other => return Err(Error::model(format!("rounding mode {other} is unknown"))),
            };
            format!(
                "input_unsigned = {}, output_unsigned = {}, per_channel = {}, rounding_mode = {rounding}, scale32 = {}",
                a.input_unsigned().map_err(e)?,
                a.output_unsigned().map_err(e)?,
                a.per_channel().map_err(e)?,
                a.scale32().map_err(e)?
            )
        }
        AttributeRef::Custom(a) => {
            let text = |s: Option<&str>| crate::emit::escape(s.unwrap_or_default());
            let implementation: String =
                a.implementation_attrs().map_err(e)?.unwrap_or_default().iter().map(|&b| b as char).collect();
            format!(
                "domain_name = \"{}\", implementation_attrs = \"{}\", operator_name = \"{}\"",
                text(a.domain_name().map_err(e)?),
                crate::emit::escape(&implementation),
                text(a.operator_name().map_err(e)?)
            )
        }
        _ => String::new(),
    })
}
