//! The attributes of two objects compared as h5diff compares them (`diff_attr`): paired by
//! name, those only one object has making the contents differ, each pair compared value by
//! value like two datasets.

use super::report::{AttributeResult, Event, Outcome, PairRow};
use super::walk::{Engine, Target};

impl Engine<'_, '_> {
    /// `diff_attr`: the attributes of two objects; the number of differences in their values.
    pub(super) fn attributes(
        &mut self,
        t1: &Target<'_>,
        t2: &Target<'_>,
        p1: &str,
        p2: &str,
    ) -> u64 {
        let a1 = t1.source.attributes(t1.id).unwrap_or_default();
        let a2 = t2.source.attributes(t2.id).unwrap_or_default();
        // Co-sequential match by name.
        let mut rows: Vec<(Option<usize>, Option<usize>)> = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < a1.len() || j < a2.len() {
            match (a1.get(i), a2.get(j)) {
                (Some(x), Some(y)) if x.name == y.name => {
                    rows.push((Some(i), Some(j)));
                    i += 1;
                    j += 1;
                }
                (Some(x), Some(y)) if x.name.as_bytes() < y.name.as_bytes() => {
                    rows.push((Some(i), None));
                    i += 1;
                }
                (Some(_), None) => {
                    rows.push((Some(i), None));
                    i += 1;
                }
                (_, Some(_)) => {
                    rows.push((None, Some(j)));
                    j += 1;
                }
                (None, None) => break,
            }
        }
        let table: Vec<PairRow> = rows
            .iter()
            .map(|&(x, y)| PairRow {
                name: x.map_or_else(|| a2[y.unwrap_or(0)].name.clone(), |x| a1[x].name.clone()),
                in_first: x.is_some(),
                in_second: y.is_some(),
            })
            .collect();
        self.r.event(Event::Attributes { rows: &table });
        if table.iter().any(|r| !(r.in_first && r.in_second)) {
            self.st.different_contents = true;
        }
        let mut nfound_total = 0;
        for (x, y) in rows {
            let (Some(x), Some(y)) = (x, y) else { continue };
            let (x, y) = (&a1[x], &a2[y]);
            let np1 = format!("{} of <{}>", x.name, p1);
            let np2 = format!("{} of <{}>", y.name, p2);
            let (dt1, dt2) = (&x.datatype, &y.datatype);
            self.reason = None;
            if !self.can_compare(dt1, dt2, &x.space, &y.space, &x.name, &y.name, true, false) {
                self.record_attribute(&x.name, 0);
                continue;
            }
            let (Ok(b1), Ok(b2)) = (
                t1.source.attribute_data(t1.id, &x.name),
                t2.source.attribute_data(t2.id, &y.name),
            ) else {
                self.st.error = true;
                continue;
            };
            self.r.event(Event::AttributeBegin {
                first: &np1,
                second: &np2,
            });
            let mut e = self.counter();
            let dims = match &x.space {
                crate::selection::Dataspace::Simple { dims, .. } => dims.clone(),
                _ => Vec::new(),
            };
            let outer = std::mem::replace(&mut self.names, (np1.clone(), np2.clone()));
            self.r.event(Event::ValuesBegin {
                first: &np1,
                second: &np2,
                dims: &dims,
            });
            if !(super::values::is_atomic(dt1) && dt1 == dt2 && b1 == b2) {
                let (s1, s2) = (t1.source.as_ref(), t2.source.as_ref());
                self.elements(s1, s2, dt1, dt2, &b1, &b2, 0, &mut e);
            }
            self.r.event(Event::ValuesEnd);
            self.names = outer;
            let nfound = e.found();
            self.r.event(Event::AttributeEnd {
                first: &np1,
                second: &np2,
                differences: nfound,
            });
            self.record_attribute(&x.name, nfound);
            nfound_total += nfound;
        }
        nfound_total
    }

    fn record_attribute(&mut self, name: &str, n: u64) {
        self.attrs.push(AttributeResult {
            name: name.to_string(),
            outcome: Outcome::of(self.reason.take(), n),
        });
    }
}
