//! The comparison rules of the conformance tests: integers bit-exact, fp32 by the TOSA
//! compliance modes as `tosa_verify` implements them (the rule text is in each desc.json).

use serde_json::Value;
use std::path::Path;
use umac_runtime::{DType, Tensor, read_npy};

/// Checks `actual` against the reference by the `compare` rule of desc.json.
pub fn check(actual: &Tensor, expected: &Tensor, compare: &Value, case: &Path) -> Result<(), String> {
    if actual.shape != expected.shape {
        return Err(format!("shape {:?}, expected {:?}", actual.shape, expected.shape));
    }
    match compare["rule"].as_str() {
        Some("exact") => {
            if actual.dtype != expected.dtype {
                return Err(format!("dtype {}, expected {}", actual.dtype, expected.dtype));
            }
            match (0..actual.len()).find(|&i| element_bytes(actual, i) != element_bytes(expected, i)) {
                None => Ok(()),
                Some(i) => Err(format!(
                    "element {i} is {}, expected {} ({} of {} elements differ)",
                    actual.get_f64(i),
                    expected.get_f64(i),
                    (0..actual.len()).filter(|&k| element_bytes(actual, k) != element_bytes(expected, k)).count(),
                    actual.len()
                )),
            }
        }
        Some("tosa_compliance") => {
            if actual.dtype != DType::F32 {
                return Err(format!("compliance rule on a {} output", actual.dtype));
            }
            let load = |key: &str| -> Result<Option<Tensor>, String> {
                compare[key].as_str().map(|f| read_npy(&case.join(f)).map_err(|e| e.to_string())).transpose()
            };
            let reference = load("reference_fp64")?.ok_or("no reference_fp64")?;
            let bounds = load("bounds")?;
            compliance(actual, &reference, bounds.as_ref(), compare)
        }
        other => Err(format!("unknown compare rule {other:?}")),
    }
}

fn element_bytes(t: &Tensor, i: usize) -> &[u8] {
    let size = t.dtype.size();
    &t.data[i * size..(i + 1) * size]
}

const FLT_MIN: f64 = f32::MIN_POSITIVE as f64;
const FLT_MAX: f64 = f32::MAX as f64;

/// tosa_verify's ULP rule for one element: the interval `ref ± ulp·ULP(ref)` in fp32 terms, where
/// an upper end beyond FLT_MAX becomes infinity (overflowing is then compliant) and the lower
/// end flushes to zero below FLT_MIN.
fn within_ulp(reference: f64, actual: f64, ulp: f64, ulp_lower: f64) -> bool {
    if reference.is_nan() || actual.is_nan() {
        return reference.is_nan() && actual.is_nan();
    }
    let (reference, actual) = if reference < 0.0 { (-reference, -actual) } else { (reference, actual) };
    let (min, max) = if reference.is_infinite() {
        (f64::INFINITY, f64::INFINITY)
    } else if reference == 0.0 {
        (0.0, 0.0)
    } else {
        let unit = 2f64.powi(reference.log2().floor() as i32).max(FLT_MIN) * 2f64.powi(-23);
        let mut max = reference + unit * ulp;
        let mut min = reference - unit * ulp_lower;
        if max > FLT_MAX {
            max = f64::INFINITY;
        }
        if min > FLT_MAX {
            min = f64::INFINITY;
        }
        if max < FLT_MIN {
            max = FLT_MIN;
        }
        if min < FLT_MIN {
            min = 0.0;
        }
        (min, max)
    };
    actual >= min && actual <= max
}

fn compliance(actual: &Tensor, reference: &Tensor, bounds: Option<&Tensor>, compare: &Value) -> Result<(), String> {
    let mode = compare["mode"].as_str().unwrap_or_default();
    let n = actual.len();
    let imp = |i: usize| actual.get_f64(i);
    let refv = |i: usize| reference.get_f64(i);
    let bnd = |i: usize| bounds.map(|b| b.get_f64(i));
    let fail = |i: usize, why: &str| Err(format!("{mode}: element {i}: imp {} vs ref {} ({why})", imp(i), refv(i)));
    let nan_inf_exact = |i: usize| -> Option<bool> {
        let (a, r) = (imp(i), refv(i));
        if r.is_nan() {
            Some(a.is_nan())
        } else if r.is_infinite() {
            Some(a == r)
        } else {
            None
        }
    };
    match mode {
        "EXACT" => {
            for i in 0..n {
                let ok = nan_inf_exact(i).unwrap_or(imp(i) == refv(i));
                if !ok {
                    return fail(i, "must be equal");
                }
            }
            Ok(())
        }
        "ULP" => {
            let info = &compare["ulp_info"];
            let ulp = info["ulp"].as_f64().unwrap_or(0.5);
            let lower = info["ulp_lower"].as_f64().unwrap_or(ulp);
            match (0..n).find(|&i| !within_ulp(refv(i), imp(i), ulp, lower)) {
                None => Ok(()),
                Some(i) => fail(i, &format!("allowed {ulp} ULP")),
            }
        }
        "ABS_ERROR" => {
            let info = &compare["abs_error_info"];
            let known = ["base_bound", "normal_divisor", "lower_bound"];
            if let Some(key) = info.as_object().and_then(|o| o.keys().find(|k| !known.contains(&k.as_str()))) {
                return Err(format!("ABS_ERROR option {key} is not implemented by this checker"));
            }
            let base = info["base_bound"].as_f64().unwrap_or(0.0);
            let divisor = info["normal_divisor"].as_f64().unwrap_or(1.0);
            let lower_bound = info["lower_bound"].as_f64().unwrap_or(0.0);
            for i in 0..n {
                let ok = match nan_inf_exact(i) {
                    Some(ok) => ok,
                    None => {
                        let mut value_bound = refv(i).abs().max(FLT_MIN) * (bnd(i).unwrap_or(0.0) + base);
                        if lower_bound > 0.0 {
                            value_bound = value_bound.max(lower_bound);
                        }
                        (imp(i) - refv(i)).abs() <= 2f64.powf(-23.0 / divisor) * value_bound
                    }
                };
                if !ok {
                    return fail(i, "absolute error bound");
                }
            }
            Ok(())
        }
        "DOT_PRODUCT" => {
            let info = &compare["dot_product_info"];
            let ksb = info["ksb"].as_f64().unwrap_or(1.0);
            let abs_bound = info["abs_bound"].as_f64().unwrap_or(2.0 * ksb);
            let variance_bound = info["variance_error_bound"].as_f64().unwrap_or(1.6 * ksb);
            let s = info["s"].as_i64().unwrap_or(0);
            let (mut sum, mut sum_sq, mut count) = (0.0f64, 0.0f64, 0usize);
            for i in 0..n {
                let (a, r) = (imp(i), refv(i));
                let b = bnd(i).unwrap_or(0.0);
                if r.is_nan() {
                    if !a.is_nan() {
                        return fail(i, "reference is NaN");
                    }
                    continue;
                }
                if b.is_nan() || b > FLT_MAX {
                    continue;
                }
                if b == 0.0 {
                    if !(r == 0.0 && a == 0.0) {
                        return fail(i, "bound 0 requires zero");
                    }
                    continue;
                }
                let err = (a - r) / (b * 2f64.powi(-24)).max(FLT_MIN);
                if err.abs() > abs_bound {
                    return fail(i, &format!("error {err} beyond {abs_bound}"));
                }
                sum += err;
                sum_sq += err * err;
                count += 1;
            }
            let t = count as f64;
            if sum_sq > variance_bound * t {
                return Err(format!("DOT_PRODUCT: error variance {sum_sq} beyond {}", variance_bound * t));
            }
            if (3..=5).contains(&s) && sum.abs() > (10.0 * variance_bound * t).sqrt() {
                return Err(format!("DOT_PRODUCT: error bias {sum} beyond {}", (10.0 * variance_bound * t).sqrt()));
            }
            Ok(())
        }
        "FP_SPECIAL" => {
            for i in 0..n {
                let (a, r) = (imp(i), refv(i));
                let b = bnd(i).unwrap_or(0.0);
                let ok = (a == 0.0 && r == 0.0)
                    || (a.is_nan() && (r.is_nan() || b.is_nan()))
                    || (a.is_nan() == r.is_nan()
                        && a.is_finite() == r.is_finite()
                        && a.is_sign_negative() == r.is_sign_negative());
                if !ok {
                    return fail(i, "special values must agree");
                }
            }
            Ok(())
        }
        other => Err(format!("unknown compliance mode {other}")),
    }
}
