//! Ragged arrays (the guide's section 3.4, and the CF conventions' contiguous ragged arrays).

use crate::error::{Error, ErrorKind, Result};
use crate::model::NcFile;
use crate::variable::Variable;
use crate::{NcForm, Numeric};
use h5_io::vlen::string_bytes;

/// The attribute naming the variable that holds each row's start (section 3.4).
pub const ROW_INDEX: &str = "row_index";

/// The CF attribute of a contiguous ragged array's count variable.
pub const SAMPLE_DIMENSION: &str = "sample_dimension";

impl NcFile {
    /// The rows of the ragged array `var`, by its `row_index` attribute (section 3.4).
    pub fn ragged_rows<T: Numeric>(&self, var: &str) -> Result<Vec<Vec<T>>> {
        self.ragged_rows_with(var, ROW_INDEX)
    }

    /// The rows of the ragged array `var`, by the attribute `attr` naming the variable that
    /// holds each row's start.
    pub fn ragged_rows_with<T: Numeric>(&self, var: &str, attr: &str) -> Result<Vec<Vec<T>>> {
        let data = self.variable(var)?;
        let f = || -> Result<Vec<Vec<T>>> {
            let a = data.ds.attr(attr).map_err(|e| {
                let mut x = Error::from(e);
                x.kind = ErrorKind::Convention;
                x
            })?;
            let index_name = attribute_text(&a)?;
            let index = self.sibling(&data, &index_name).map_err(|e| {
                Error::new(
                    ErrorKind::Convention,
                    format!("attribute {attr:?} names the variable {index_name:?}: {e}"),
                )
            })?;
            ensure_rank1(&data)?;
            ensure_rank1(&index)?;
            let starts: Vec<i64> = index.read(NcForm::Whole).map_err(|e| e.at(index.path()))?;
            let values: Vec<T> = data.read(NcForm::Whole)?;
            let len = values.len() as i64;
            let mut rows = Vec::with_capacity(starts.len());
            for (i, &s) in starts.iter().enumerate() {
                let end = starts.get(i + 1).copied().unwrap_or(len);
                if s < 0 || s > end || end > len {
                    return Err(Error::new(
                        ErrorKind::Convention,
                        format!(
                            "row {i} of {var:?} spans [{s}, {end}) by {index_name:?}: row starts must be non-decreasing and within the {len} values"
                        ),
                    ));
                }
                rows.push(values[s as usize..end as usize].to_vec());
            }
            Ok(rows)
        };
        f().map_err(|e| e.at(data.path()))
    }

    /// The rows of the CF contiguous ragged array `var`: the count variable is the one whose
    /// `sample_dimension` attribute names `var`'s dimension.
    pub fn cf_contiguous_rows<T: Numeric>(&self, var: &str) -> Result<Vec<Vec<T>>> {
        let data = self.variable(var)?;
        let f = || -> Result<Vec<Vec<T>>> {
            ensure_rank1(&data)?;
            let dim = data
                .dims
                .first()
                .map(|d| d.name.clone())
                .unwrap_or_default();
            let mut count_var = None;
            for name in self.variables()? {
                let v = self.reader.dataset(&format!("/{name}"))?;
                if let Ok(a) = v.attr(SAMPLE_DIMENSION) {
                    if attribute_text(&a)? == dim {
                        count_var = Some(name);
                        break;
                    }
                }
            }
            let count_var = count_var.ok_or_else(|| {
                Error::new(
                    ErrorKind::Convention,
                    format!("no variable has {SAMPLE_DIMENSION} = {dim:?}"),
                )
            })?;
            let counts: Vec<i64> = self.variable(&count_var)?.read(NcForm::Whole)?;
            let values: Vec<T> = data.read(NcForm::Whole)?;
            let mut rows = Vec::with_capacity(counts.len());
            let mut at = 0usize;
            for (i, &c) in counts.iter().enumerate() {
                let end = usize::try_from(c)
                    .ok()
                    .and_then(|c| at.checked_add(c))
                    .filter(|&e| e <= values.len())
                    .ok_or_else(|| {
                        Error::new(
                            ErrorKind::Convention,
                            format!(
                                "row {i} of {count_var:?} has count {c}: counts must be non-negative and sum to at most the {} values",
                                values.len()
                            ),
                        )
                    })?;
                rows.push(values[at..end].to_vec());
                at = end;
            }
            Ok(rows)
        };
        f().map_err(|e| e.at(data.path()))
    }

    /// A variable in the same group as `v`.
    fn sibling(&self, v: &Variable, name: &str) -> Result<Variable> {
        if name.starts_with('/') {
            return self.variable(name);
        }
        let parent = v.path().rsplit_once('/').map(|(p, _)| p).unwrap_or("");
        self.variable(&format!("{parent}/{name}"))
    }
}

fn ensure_rank1(v: &Variable) -> Result<()> {
    if v.dims.len() == 1 {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::Convention,
            format!(
                "{}: a ragged array's variables have one dimension, not {}",
                v.path(),
                v.dims.len()
            ),
        ))
    }
}

/// The text of a string attribute (fixed or variable length, up to its first NUL).
fn attribute_text(a: &h5_io::Attribute) -> Result<String> {
    let (raw, dt) = a.read_raw();
    let bytes = string_bytes(a.file(), &dt, &raw).map_err(|_| {
        Error::new(
            ErrorKind::Convention,
            format!("attribute {:?} is {dt}, not a string", a.name()),
        )
    })?;
    match bytes.as_slice() {
        [one] => Ok(String::from_utf8_lossy(one).trim_end().to_string()),
        _ => Err(Error::new(
            ErrorKind::Convention,
            format!(
                "attribute {:?} holds {} strings, not one",
                a.name(),
                bytes.len()
            ),
        )),
    }
}
