//! h5grove's `selection` query parameter: numpy's basic indexing written as text
//! (`"5"`, `"1, 2:5"`, `"0:10:5, 2, 3:"`), parsed as h5grove's `parse_slice` does and applied
//! as h5py applies it to a dataset.

use crate::error::{ApiError, Result};

/// One member of a selection: an integer (drops its dimension) or a slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Member {
    /// `i`: one index, negative from the end.
    Index(i64),
    /// `start:stop:step`, each optional.
    Slice(Option<i64>, Option<i64>, Option<i64>),
}

/// Python's `int(text)`: surrounding whitespace allowed, an optional sign, digits with
/// optional single underscores between them.
fn py_int(text: &str) -> Result<i64> {
    let t = text.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    let ok = !digits.is_empty()
        && !digits.starts_with('_')
        && !digits.ends_with('_')
        && !digits.contains("__")
        && digits.chars().all(|c| c.is_ascii_digit() || c == '_');
    if !ok {
        return Err(ApiError::internal(format!(
            "invalid literal for int() with base 10: '{text}'"
        )));
    }
    t.replace('_', "")
        .parse::<i64>()
        .map_err(|_| ApiError::internal(format!("{text} is out of range")))
}

/// h5grove's `parse_slice`.
pub fn parse(text: &str) -> Result<Vec<Member>> {
    text.split(',').map(parse_member).collect()
}

fn parse_member(m: &str) -> Result<Member> {
    if !m.contains(':') {
        return Ok(Member::Index(py_int(m)?));
    }
    let parts: Vec<&str> = m.split(':').collect();
    let opt = |s: &str| -> Result<Option<i64>> {
        if s.is_empty() {
            Ok(None)
        } else {
            py_int(s).map(Some)
        }
    };
    match parts.as_slice() {
        // h5grove writes a missing start of `a:b` as 0 (same meaning for positive steps).
        [start, stop] => Ok(Member::Slice(
            Some(opt(start)?.unwrap_or(0)),
            opt(stop)?,
            None,
        )),
        [start, stop, step] => Ok(Member::Slice(opt(start)?, opt(stop)?, opt(step)?)),
        _ => Err(ApiError::internal(format!("{m} is not a valid slice"))),
    }
}

/// A selection applied to a dataset's shape: a regular hyperslab, and the shape of the
/// result (dimensions indexed by an integer dropped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// First index in each dimension.
    pub start: Vec<u64>,
    /// Step in each dimension.
    pub stride: Vec<u64>,
    /// Number of elements in each dimension.
    pub count: Vec<u64>,
    /// The result's shape.
    pub shape: Vec<u64>,
}

impl Applied {
    /// The whole extent.
    pub fn all(dims: &[u64]) -> Applied {
        Applied {
            start: vec![0; dims.len()],
            stride: vec![1; dims.len()],
            count: dims.to_vec(),
            shape: dims.to_vec(),
        }
    }

    /// The number of elements selected.
    pub fn len(&self) -> u64 {
        self.count.iter().fold(1u64, |a, &c| a.saturating_mul(c))
    }

    /// Whether the whole extent `dims` is selected in order.
    pub fn is_all(&self, dims: &[u64]) -> bool {
        self.count == dims && self.start.iter().all(|&s| s == 0)
    }
}

/// Apply `members` to a dataset of `dims` as h5py does (`dataset[tuple]`), with the text
/// the error messages quote.
pub fn apply(text: &str, members: &[Member], dims: &[u64]) -> Result<Applied> {
    if members.len() > dims.len() {
        return Err(ApiError::internal(format!(
            "{text} has too many members to slice a {}D dataset",
            dims.len()
        )));
    }
    let mut a = Applied::all(dims);
    a.shape.clear();
    for (axis, &n) in dims.iter().enumerate() {
        let len = i64::try_from(n).map_err(|_| ApiError::internal("dimension too large"))?;
        match members.get(axis) {
            None => a.shape.push(n),
            Some(Member::Index(i)) => {
                let j = if *i < 0 { i + len } else { *i };
                if j < 0 || j >= len {
                    return Err(ApiError::internal(format!(
                        "Index ({i}) out of range for (0-{})",
                        len - 1
                    )));
                }
                a.start[axis] = j as u64;
                a.count[axis] = 1;
            }
            Some(Member::Slice(start, stop, step)) => {
                let step = step.unwrap_or(1);
                if step < 1 {
                    return Err(ApiError::internal(format!(
                        "Step must be >= 1 (got {step})"
                    )));
                }
                // Python's slice.indices for a positive step.
                let clamp = |v: i64| -> i64 {
                    if v < 0 {
                        (v + len).max(0)
                    } else {
                        v.min(len)
                    }
                };
                let s = start.map_or(0, clamp);
                let e = stop.map_or(len, clamp);
                let count = if e > s { (e - s + step - 1) / step } else { 0 };
                a.start[axis] = if count > 0 { s as u64 } else { 0 };
                a.stride[axis] = step as u64;
                a.count[axis] = count as u64;
                a.shape.push(count as u64);
            }
        }
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_h5grove_forms() {
        assert_eq!(parse("5").unwrap(), [Member::Index(5)]);
        assert_eq!(
            parse("1, 2:5").unwrap(),
            [Member::Index(1), Member::Slice(Some(2), Some(5), None)]
        );
        assert_eq!(
            parse("0:10:5, 2, 3:").unwrap(),
            [
                Member::Slice(Some(0), Some(10), Some(5)),
                Member::Index(2),
                Member::Slice(Some(3), None, None)
            ]
        );
        assert_eq!(parse("::2").unwrap(), [Member::Slice(None, None, Some(2))]);
        assert!(parse("a").is_err());
        assert!(parse("1:2:3:4").is_err());
    }

    #[test]
    fn applies_as_numpy() {
        let a = apply("1, -3:", &parse("1, -3:").unwrap(), &[4, 10]).unwrap();
        assert_eq!(
            (a.start, a.count, a.shape),
            (vec![1, 7], vec![1, 3], vec![3])
        );
        let a = apply("::3", &parse("::3").unwrap(), &[10]).unwrap();
        assert_eq!((a.count, a.stride), (vec![4], vec![3]));
        let a = apply("5:2", &parse("5:2").unwrap(), &[10]).unwrap();
        assert_eq!(a.shape, [0]);
        assert!(apply("1,2", &parse("1,2").unwrap(), &[3]).is_err());
        assert!(apply("7", &parse("7").unwrap(), &[3]).is_err());
        assert!(apply("::0", &parse("::0").unwrap(), &[3]).is_err());
    }
}
