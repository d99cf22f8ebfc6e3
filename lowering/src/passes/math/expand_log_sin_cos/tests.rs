//! The arithmetic `umac-expand-log-sin-cos` writes, replayed in Rust's single precision operation
//! for operation, against the exact functions (f64).

use super::*;

fn horner(x: f32, coefficients: &[f32]) -> f32 {
    coefficients[1..].iter().fold(coefficients[0], |acc, &c| acc * x + c)
}

fn log(x: f32) -> f32 {
    let x_bits = x.to_bits();
    let magnitude = x_bits & 0x7FFF_FFFF;
    let subnormal = magnitude < f32::MIN_POSITIVE.to_bits();
    let normal = if subnormal { magnitude as i32 as f32 } else { x };
    let bits = normal.to_bits();
    let biased = ((bits >> 23) & 255) as i32;
    let e = biased - if subnormal { 126 + 149 } else { 126 };
    let m = f32::from_bits((bits & 0x007F_FFFF) | 0x3F00_0000);
    let low = m < SQRT_HALF;
    let e = if low { e - 1 } else { e };
    let t = if low { (m + m) - 1.0 } else { m - 1.0 };
    let z = t * t;
    let y = horner(t, &LOG_POLYNOMIAL) * t * z;
    let fe = e as f32;
    let y = y + fe * LN2_LOW;
    let y = y + z * -0.5;
    let result = (t + y) + fe * LN2_HIGH;
    let result = if x_bits == 0x7F80_0000 { f32::INFINITY } else { result };
    let result = if x_bits > 0x7F80_0000 { f32::NAN } else { result };
    if biased == 0 { f32::NEG_INFINITY } else { result }
}

fn sin_cos(x: f32, cos: bool) -> f32 {
    let magnitude = x.abs();
    let reduced = magnitude <= SIN_COS_LIMIT;
    let a = if reduced { magnitude } else { 0.0 };
    let truncated = (a * FOUR_OVER_PI) as i32;
    let j = truncated + (truncated & 1);
    let y = j as f32;
    let r = ((a - y * DP1) - y * DP2) - y * DP3;
    let z = r * r;
    let sine = horner(z, &SIN_POLYNOMIAL) * (z * r) + r;
    let cosine = (horner(z, &COS_POLYNOMIAL) * (z * z) + z * -0.5) + 1.0;
    let other = j & 2 != 0;
    let value = match (cos, other) {
        (true, true) | (false, false) => sine,
        _ => cosine,
    };
    let mut sign = ((if cos { j + 2 } else { j }) & 4) << 29;
    if !cos {
        sign ^= (x.to_bits() & 0x8000_0000) as i32;
    }
    let signed = f32::from_bits(value.to_bits() ^ sign as u32);
    let result = if reduced { signed } else { 0.0 };
    if magnitude.is_nan() || magnitude == f32::INFINITY { f32::NAN } else { result }
}

fn sin(x: f32) -> f32 {
    sin_cos(x, false)
}

fn cos(x: f32) -> f32 {
    sin_cos(x, true)
}

fn ulps(a: f32, b: f32) -> u32 {
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
}

/// The distance from `x` to the next float away from 0.
fn ulp(x: f32) -> f64 {
    let a = x.abs();
    f64::from(f32::from_bits(a.to_bits() + 1) - a)
}

#[test]
fn log_is_within_one_ulp() {
    let mut worst = (0, 0.0);
    let mut check = |x: f32| {
        let want = f64::from(x).ln() as f32;
        let got = log(x);
        if ulps(got, want) > worst.0 {
            worst = (ulps(got, want), x);
        }
    };
    // Every 997th positive finite float, subnormals included (from the smallest to f32::MAX)...
    for bits in (1..0x7F80_0000u32).step_by(997) {
        check(f32::from_bits(bits));
    }
    check(f32::MAX);
    // ...and every float within 2^16 of 1 (where log is near 0) and around √½ and √2.
    for center in [1.0f32, SQRT_HALF, std::f32::consts::SQRT_2, f32::MIN_POSITIVE] {
        let bits = center.to_bits();
        for b in bits - (1 << 16)..bits + (1 << 16) {
            check(f32::from_bits(b));
        }
    }
    assert!(worst.0 <= 1, "worst {} ulp at {:e}", worst.0, worst.1);
}

#[test]
fn log_special_values() {
    assert_eq!(log(1.0), 0.0);
    assert_eq!(log(f32::INFINITY), f32::INFINITY);
    assert_eq!(log(0.0), f32::NEG_INFINITY);
    assert_eq!(log(-0.0), f32::NEG_INFINITY);
    for x in [-1.0, -f32::from_bits(1), f32::NEG_INFINITY, f32::NAN, -f32::NAN] {
        assert!(log(x).is_nan(), "{x}");
    }
    // The smallest subnormal: -149 ln 2.
    assert_eq!(log(f32::from_bits(1)), (-149.0 * std::f64::consts::LN_2) as f32);
    assert_eq!(log(std::f32::consts::E), 1.0);
}

/// Within 2^-23 of the exact result on [-8192, 8192]; within 1 ulp where it is above 1/2, and for
/// |x| < π/4 (no reduction).
#[test]
fn sin_cos_are_within_two_to_the_minus_23_up_to_8192() {
    for (name, f, exact) in [("sin", sin as fn(f32) -> f32, f64::sin as fn(f64) -> f64), ("cos", cos, f64::cos)] {
        let (mut worst, mut worst_ulps) = (0.0f64, 0);
        let mut check = |x: f32| {
            let want = exact(f64::from(x));
            let got = f(x);
            worst = worst.max((f64::from(got) - want).abs());
            if want.abs() >= 0.5 || x.abs() < std::f32::consts::FRAC_PI_4 {
                worst_ulps = worst_ulps.max(ulps(got, want as f32));
            }
        };
        let n = 2_000_000;
        for i in 0..=n {
            check((-8192.0 + 16384.0 * f64::from(i) / f64::from(n)) as f32);
        }
        for bits in (0..std::f32::consts::FRAC_PI_4.to_bits()).step_by(101) {
            check(f32::from_bits(bits));
            check(-f32::from_bits(bits));
        }
        for k in (-10430..=10430).filter(|&k| k != 0) {
            // Every multiple of π/4 (the octants' edges) and its neighbours.
            let x = (f64::from(k) * std::f64::consts::FRAC_PI_4) as f32;
            if x.abs() <= 8192.0 {
                for b in [x.to_bits() - 1, x.to_bits(), x.to_bits() + 1] {
                    check(f32::from_bits(b));
                }
            }
        }
        assert!(worst <= 2f64.powi(-23), "{name}: worst {worst:e}");
        assert!(worst_ulps <= 1, "{name}: worst {worst_ulps} ulp");
    }
}

/// Beyond 8192 the reduction's products round: within 1e-6 up to 65536, within (1/2 + 2^-10) ulp
/// of `x` up to 2^24 - 1 (measured: 0.50008); 0 above; NaN for inf and NaN.
#[test]
fn sin_cos_beyond_8192() {
    for (name, f, exact) in [("sin", sin as fn(f32) -> f32, f64::sin as fn(f64) -> f64), ("cos", cos, f64::cos)] {
        for (from, to, bound) in
            [(8192.0f64, 65536.0f64, None), (65536.0, f64::from(SIN_COS_LIMIT), Some(0.5 + 2f64.powi(-10)))]
        {
            let n = 200_000;
            for i in 0..=n {
                let x = (from + (to - from) * f64::from(i) / f64::from(n)) as f32;
                for x in [x, -x] {
                    let error = (f64::from(f(x)) - exact(f64::from(x))).abs();
                    let allowed = bound.map_or(1e-6, |b| b * ulp(x));
                    assert!(error <= allowed, "{name}({x}): error {error:e}");
                }
            }
        }
        for x in [16_777_216.0, 1e10, f32::MAX, -f32::MAX] {
            assert_eq!(f(x), 0.0, "{name}({x})");
        }
        for x in [f32::INFINITY, f32::NEG_INFINITY, f32::NAN] {
            assert!(f(x).is_nan(), "{name}({x})");
        }
    }
}

#[test]
fn sin_cos_special_values() {
    assert_eq!(sin(0.0).to_bits(), 0.0f32.to_bits());
    assert_eq!(sin(-0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!((cos(0.0), cos(-0.0)), (1.0, 1.0));
    // Odd and even: the reduction runs on |x|.
    for x in [0.3f32, 1.0, 2.5, 100.0, 8191.7] {
        assert_eq!(sin(-x), -sin(x));
        assert_eq!(cos(-x), cos(x));
    }
    let tiny = f32::from_bits(1);
    assert_eq!((sin(tiny), sin(-tiny)), (tiny, -tiny));
    assert_eq!(cos(std::f32::consts::PI), -1.0);
}
