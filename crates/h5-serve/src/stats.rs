//! h5grove's `/stats`: min, max, mean and standard deviation of the finite values, computed
//! as numpy computes them (pairwise summation, in the array's own float width, integers
//! through `float64` in numpy's 8192-element buffers), so the digits agree.

use crate::error::{ApiError, Result};
use crate::values::{as_f64, as_i128, f16_to_f32, f32_to_f16, Json, Numeric, Values};

/// A float numpy sums in its own width.
trait Float: Copy + std::ops::Add<Output = Self> + std::ops::AddAssign {
    /// numpy starts short sums at -0.0 (so a sum of -0.0 stays -0.0).
    const NEG_ZERO: Self;
}

impl Float for f32 {
    const NEG_ZERO: f32 = -0.0;
}

impl Float for f64 {
    const NEG_ZERO: f64 = -0.0;
}

/// numpy's `pairwise_sum` (`PW_BLOCKSIZE` 128, eight accumulators).
fn pairwise<T: Float>(a: &[T]) -> T {
    let n = a.len();
    if n < 8 {
        let mut res = T::NEG_ZERO;
        for &x in a {
            res += x;
        }
        res
    } else if n <= 128 {
        let mut r = [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]];
        let mut i = 8;
        while i < n - n % 8 {
            for (k, acc) in r.iter_mut().enumerate() {
                *acc += a[i + k];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &x in &a[i..] {
            res += x;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise(&a[..n2]) + pairwise(&a[n2..])
    }
}

fn pairwise64(a: &[f64]) -> f64 {
    pairwise(a)
}

fn pairwise32(a: &[f32]) -> f32 {
    pairwise(a)
}

/// A sum through numpy's casting buffer: pairwise within each 8192-element block, the block
/// sums added in order.
fn buffered64(a: &[f64]) -> f64 {
    let mut out = 0.0;
    for block in a.chunks(8192) {
        out += pairwise64(block);
    }
    out
}

fn entry(j: &mut Json, key: &str, first: bool) {
    if !first {
        j.raw(",");
    }
    j.string(key);
    j.raw(":");
}

/// The JSON of h5grove's `get_array_stats` for numeric values.
pub fn stats_json(values: &Values, n: Numeric) -> Result<String> {
    let mut j = Json::new();
    j.raw("{");
    let keys = [
        "strict_positive_min",
        "positive_min",
        "min",
        "max",
        "mean",
        "std",
    ];
    match n {
        Numeric::Float(size, _) => {
            let all = as_f64(values, n);
            let data: Vec<f64> = all.into_iter().filter(|v| v.is_finite()).collect();
            if data.is_empty() {
                return Ok(nulls(&keys));
            }
            let min = |it: &mut dyn Iterator<Item = f64>| it.reduce(f64::min);
            let spm = min(&mut data.iter().copied().filter(|&v| v > 0.0));
            let pm = min(&mut data.iter().copied().filter(|&v| v >= 0.0));
            let lo = min(&mut data.iter().copied());
            let hi = data.iter().copied().reduce(f64::max);
            let count = data.len() as f64;
            let h = |v: f32| f16_to_f32(f32_to_f16(v));
            let (mean, std) = if size == 2 {
                // float16 reductions: float32 accumulators, every result rounded to float16.
                let d: Vec<f32> = data.iter().map(|&v| v as f32).collect();
                let mean = h(((h(pairwise32(&d)) as f64) / count) as f32);
                let sq: Vec<f32> = d.iter().map(|&v| h(h(v - mean) * h(v - mean))).collect();
                let var = h(((h(pairwise32(&sq)) as f64) / count) as f32);
                (mean as f64, h(var.sqrt()) as f64)
            } else if size == 8 {
                let mean = pairwise64(&data) / count;
                let sq: Vec<f64> = data.iter().map(|v| (v - mean) * (v - mean)).collect();
                (mean, (pairwise64(&sq) / count).sqrt())
            } else {
                // float32 (and float16, summed in float32) reductions stay in float32.
                let d32: Vec<f32> = data.iter().map(|&v| v as f32).collect();
                let mean = ((pairwise32(&d32) as f64) / count) as f32;
                let sq: Vec<f32> = d32.iter().map(|v| (v - mean) * (v - mean)).collect();
                let var = ((pairwise32(&sq) as f64) / count) as f32;
                (mean as f64, var.sqrt() as f64)
            };
            let vals = [spm, pm, lo, hi, Some(mean), Some(std)];
            for (k, (key, v)) in keys.iter().zip(vals).enumerate() {
                entry(&mut j, key, k == 0);
                match v {
                    Some(v) => j.float(v, false),
                    None => j.raw("null"),
                }
            }
        }
        Numeric::Complex(..) => {
            // numpy orders complex numbers by real part then imaginary part, and h5grove
            // casts each result with int() (the real part, truncated).
            let data = crate::values::as_complex(values, n);
            if data.is_empty() {
                return Ok(nulls(&keys));
            }
            let cmp = |a: &(f64, f64), b: &(f64, f64)| {
                a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal)
            };
            let zero = (0.0, 0.0);
            let spm = data
                .iter()
                .filter(|z| cmp(z, &zero).is_gt())
                .min_by(|a, b| cmp(a, b));
            let pm = data
                .iter()
                .filter(|z| cmp(z, &zero).is_ge())
                .min_by(|a, b| cmp(a, b));
            let lo = data.iter().min_by(|a, b| cmp(a, b));
            let hi = data.iter().max_by(|a, b| cmp(a, b));
            let count = data.len() as f64;
            let re: Vec<f64> = data.iter().map(|z| z.0).collect();
            let im: Vec<f64> = data.iter().map(|z| z.1).collect();
            let (mr, mi) = (pairwise64(&re) / count, pairwise64(&im) / count);
            let sq: Vec<f64> = data
                .iter()
                .map(|z| (z.0 - mr) * (z.0 - mr) + (z.1 - mi) * (z.1 - mi))
                .collect();
            let std = (pairwise64(&sq) / count).sqrt();
            let int = |v: f64| Some(v.trunc() as i128);
            let vals = [
                spm.and_then(|z| int(z.0)),
                pm.and_then(|z| int(z.0)),
                lo.and_then(|z| int(z.0)),
                hi.and_then(|z| int(z.0)),
                int(mr),
                int(std),
            ];
            for (k, (key, v)) in keys.iter().zip(vals).enumerate() {
                entry(&mut j, key, k == 0);
                match v {
                    Some(v) => j.raw(&v.to_string()),
                    None => j.raw("null"),
                }
            }
        }
        _ => {
            let data = as_i128(values, n);
            if data.is_empty() {
                return Ok(nulls(&keys));
            }
            let spm = data.iter().copied().filter(|&v| v > 0).min();
            let pm = data.iter().copied().filter(|&v| v >= 0).min();
            let lo = data.iter().copied().min();
            let hi = data.iter().copied().max();
            let f: Vec<f64> = data.iter().map(|&v| v as f64).collect();
            let count = f.len() as f64;
            let mean = buffered64(&f) / count;
            let sq: Vec<f64> = f.iter().map(|v| (v - mean) * (v - mean)).collect();
            let std = (pairwise64(&sq) / count).sqrt();
            // Python's int() of a float truncates toward zero.
            let vals = [
                spm,
                pm,
                lo,
                hi,
                Some(mean.trunc() as i128),
                Some(std.trunc() as i128),
            ];
            for (k, (key, v)) in keys.iter().zip(vals).enumerate() {
                entry(&mut j, key, k == 0);
                match v {
                    // orjson writes integers of 64 bits only.
                    Some(v) if v < i128::from(i64::MIN) || v > i128::from(u64::MAX) => {
                        return Err(ApiError::internal("Integer exceeds 64-bit range"))
                    }
                    Some(v) => j.raw(&v.to_string()),
                    None => j.raw("null"),
                }
            }
        }
    }
    j.raw("}");
    Ok(j.out)
}

fn nulls(keys: &[&str]) -> String {
    let mut j = Json::new();
    j.raw("{");
    for (k, key) in keys.iter().enumerate() {
        entry(&mut j, key, k == 0);
        j.raw("null");
    }
    j.raw("}");
    j.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairwise_matches_plain_sums_on_exact_values() {
        let a: Vec<f64> = (0..1000).map(f64::from).collect();
        assert_eq!(pairwise64(&a), 499_500.0);
        let b: Vec<f32> = (0..300).map(|v| v as f32).collect();
        assert_eq!(pairwise32(&b), 44_850.0);
        assert_eq!(buffered64(&a), 499_500.0);
    }
}
