//! The traversal of two files or groups as h5diff walks them (`h5trav_visit`, `diff_match`,
//! `diff`): the objects of each side by path, paired by relative name, with h5diff's
//! handling of symbolic links (`--follow-symlinks`, `--no-dangling-links`), excluded paths,
//! and the comparison of each pair by kind (datasets by value, named datatypes by type,
//! soft and external links by value, groups by their attributes).

use std::collections::HashSet;
use std::rc::Rc;

use super::report::{
    AttributeResult, Event, NotComparable, ObjectResult, Outcome, PairRow, Reporter, Summary,
};
use super::source::{ObjectId, ObjectType, Source, SourceRef};
use super::values::Subset;
use super::CompareOptions;
use crate::link::{Link, LinkTarget};

/// What h5diff's options decide about what is compared and counted (the report's form is
/// the caller's: it receives [`Event`]s).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiffOptions {
    /// The tolerances, NaN rule and count (`-d`, `-p`, `--use-system-epsilon`, `--nan`,
    /// `-n`). `keep_details` is not used: differences go to the reporter.
    pub values: CompareOptions,
    /// `--follow-symlinks`: compare what soft and external links point at (instead of their
    /// values).
    pub follow_symlinks: bool,
    /// `--no-dangling-links` (with `follow_symlinks`): a dangling link is an error.
    pub no_dangling_links: bool,
    /// `--exclude-path`: objects (and what is below a group) at these paths, relative to
    /// the compared groups, are left out.
    pub exclude_paths: Vec<String>,
    /// `--exclude-attribute`: the attributes of the objects at these paths are not compared.
    pub exclude_attributes: Vec<String>,
    /// The subsets of the two named datasets (`obj[START;STRIDE;COUNT;BLOCK]`); the second
    /// defaults to the first.
    pub subsets: [Option<Subset>; 2],
    /// Walk two named objects that are one and the same object too (h5diff does with `-v`
    /// or `-r`, to list them); otherwise they are the same without a look.
    pub visit_identical: bool,
}

/// What the comparison found besides the difference count.
#[derive(Default)]
pub(super) struct Status {
    pub(super) not_cmp: bool,
    pub(super) different_contents: bool,
    pub(super) error: bool,
}

/// The running comparison: options, findings, and the reporter.
pub(super) struct Engine<'o, 'r> {
    pub(super) o: &'o DiffOptions,
    pub(super) st: Status,
    pub(super) r: &'r mut dyn Reporter,
    /// The paths of the two named objects when they carry subsets.
    pub(super) subset_at: Option<(String, String)>,
    /// The names the values being compared go by (h5diff's `obj1`/`obj2` names).
    pub(super) names: (String, String),
    /// Why the current pair was not compared.
    pub(super) reason: Option<NotComparable>,
    /// The attributes of the current pair.
    pub(super) attrs: Vec<AttributeResult>,
    pub(super) objects: Vec<ObjectResult>,
}

/// One side of the comparison: the source of its named object.
struct Side<'a> {
    source: SourceRef<'a>,
}

/// Where a path leads in one side (following links as the library does).
#[derive(Clone)]
pub(super) struct Target<'a> {
    pub(super) source: SourceRef<'a>,
    pub(super) id: ObjectId,
}

/// A symbolic link's state (`H5tools_get_symlink_info`).
enum LinkState<'a> {
    /// Not a symbolic link (a hard link or the root).
    Hard,
    /// A symbolic link whose target exists.
    Found(Target<'a>),
    /// A dangling symbolic link.
    Dangling,
}

impl<'a> Side<'a> {
    fn root(&self) -> Target<'a> {
        Target {
            source: Rc::clone(&self.source),
            id: self.source.root(),
        }
    }

    /// Resolve `path` from the root, following every link.
    fn resolve(&self, path: &str) -> Option<Target<'a>> {
        resolve_in(self.root(), path, 0)
    }

    /// The link `path` names.
    fn link(&self, path: &str) -> Option<LinkTarget> {
        let trimmed = path.trim_end_matches('/');
        let (parent, name) = trimmed.rsplit_once('/')?;
        let p = self.resolve(parent)?;
        p.source
            .links(p.id)
            .ok()?
            .into_iter()
            .find(|l| l.name == name)
            .map(|l| l.target)
    }

    fn symlink_state(&self, path: &str) -> LinkState<'a> {
        match self.link(path) {
            Some(LinkTarget::Soft(_)) | Some(LinkTarget::External { .. }) => {
                match self.resolve(path) {
                    Some(t) => LinkState::Found(t),
                    None => LinkState::Dangling,
                }
            }
            _ => LinkState::Hard,
        }
    }
}

fn kind_of(t: &Target<'_>) -> Option<ObjectType> {
    t.source.object_type(t.id)
}

fn resolve_in<'a>(at: Target<'a>, path: &str, depth: usize) -> Option<Target<'a>> {
    if depth > 16 {
        return None;
    }
    let comps: Vec<&str> = path
        .split('/')
        .filter(|c| !c.is_empty() && *c != ".")
        .collect();
    let mut cur = Target {
        id: at.source.root(),
        ..at
    };
    for (i, comp) in comps.iter().enumerate() {
        let l = cur
            .source
            .links(cur.id)
            .ok()?
            .into_iter()
            .find(|l| l.name == *comp)?;
        cur = match l.target {
            LinkTarget::Hard(a) => Target { id: a.0, ..cur },
            LinkTarget::Soft(t) => {
                let full = if t.starts_with('/') {
                    t
                } else {
                    format!("/{}/{}", comps[..i].join("/"), t)
                };
                resolve_in(cur, &full, depth + 1)?
            }
            LinkTarget::External { file, path } => {
                let f = cur.source.open_external(&file)?;
                let start = Target {
                    id: f.root(),
                    source: f,
                };
                resolve_in(start, &path, depth + 1)?
            }
            LinkTarget::UserDefined { .. } => return None,
        };
    }
    Some(cur)
}

/// One entry of a traversal (`trav_path_t`).
#[derive(Clone)]
struct Entry {
    path: String,
    kind: ObjectType,
    obj: Option<(String, ObjectId)>,
}

/// What identifies an object across sources.
fn obj_key(t: &Target<'_>) -> (String, ObjectId) {
    (t.source.identity().to_string(), t.id)
}

/// `h5trav_visit` of `start` (visiting the start object), with h5diff's symbolic-link
/// handling (`trav_grp_symlinks`).
fn traverse(side: &Side<'_>, start: &str, o: &DiffOptions, st: &mut Status) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut visited_links: Vec<(Option<String>, String)> = Vec::new();
    let Some(t) = side.resolve(start) else {
        return out;
    };
    visit(side, start, t, o, st, &mut out, &mut visited_links);
    out
}

fn visit<'a>(
    side: &Side<'a>,
    start: &str,
    t: Target<'a>,
    o: &DiffOptions,
    st: &mut Status,
    out: &mut Vec<Entry>,
    visited_links: &mut Vec<(Option<String>, String)>,
) {
    let Some(kind) = kind_of(&t) else {
        return;
    };
    out.push(Entry {
        path: start.to_string(),
        kind,
        obj: Some(obj_key(&t)),
    });
    if kind != ObjectType::Group {
        return;
    }
    // H5Lvisit: depth first by name, each group once.
    let mut seen = HashSet::new();
    seen.insert(t.id);
    let mut stack: Vec<(String, Target<'a>, Vec<Link>, usize)> = Vec::new();
    let links = t.source.links(t.id).unwrap_or_default();
    stack.push((start.to_string(), t, links, 0));
    while let Some((path, group, links, next)) = stack.last_mut() {
        let Some(l) = links.get(*next).cloned() else {
            stack.pop();
            continue;
        };
        *next += 1;
        let full = if path == "/" {
            format!("/{}", l.name)
        } else {
            format!("{}/{}", path, l.name)
        };
        let group = group.clone();
        match &l.target {
            LinkTarget::Hard(a) => {
                let id = &a.0;
                let here = Target {
                    id: *id,
                    ..group.clone()
                };
                let Some(kind) = kind_of(&here) else {
                    continue;
                };
                out.push(Entry {
                    path: full.clone(),
                    kind,
                    obj: Some(obj_key(&here)),
                });
                if kind == ObjectType::Group && seen.insert(*id) {
                    let links = here.source.links(*id).unwrap_or_default();
                    stack.push((full, here, links, 0));
                }
            }
            target => {
                let kind = if matches!(target, LinkTarget::Soft(_)) {
                    ObjectType::Link
                } else {
                    ObjectType::UdLink
                };
                let key = match target {
                    LinkTarget::Soft(v) => (None, v.clone()),
                    LinkTarget::External { file, path } => (Some(file.clone()), path.clone()),
                    _ => (Some(String::new()), String::new()),
                };
                if !o.follow_symlinks || matches!(target, LinkTarget::UserDefined { .. }) {
                    out.push(Entry {
                        path: full,
                        kind,
                        obj: None,
                    });
                    continue;
                }
                match side.resolve(&full) {
                    None => {
                        if o.no_dangling_links {
                            st.error = true;
                        }
                        out.push(Entry {
                            path: full,
                            kind,
                            obj: None,
                        });
                    }
                    Some(t) => {
                        if visited_links.contains(&key) {
                            continue;
                        }
                        visited_links.push(key);
                        let mut inner = Vec::new();
                        visit(side, &full, t, o, st, &mut inner, visited_links);
                        out.extend(inner);
                    }
                }
            }
        }
    }
}

/// `is_exclude_path`.
fn excluded(o: &DiffOptions, path: &str, groups: &mut Vec<String>, kind: ObjectType) -> bool {
    if groups
        .iter()
        .any(|g| path.starts_with(g.as_str()) && path.as_bytes().get(g.len()) == Some(&b'/'))
    {
        return true;
    }
    if o.exclude_paths.iter().any(|e| e == path) {
        if kind == ObjectType::Group {
            groups.push(path.to_string());
        }
        return true;
    }
    false
}

/// Compare two sides as h5diff does: the objects at `names` (the first's path, and the
/// second's; both `None`: the two root groups; a path without a leading `/` is taken from
/// the root), groups object by object through their whole hierarchy, paired by relative
/// path. Every finding goes to `report` as it is made; the [`Summary`] has the totals, the
/// per-object outcomes and the exit status.
pub fn compare_sources<'a>(
    first: SourceRef<'a>,
    second: SourceRef<'a>,
    names: (Option<&str>, Option<&str>),
    o: &DiffOptions,
    report: &mut dyn Reporter,
) -> Summary {
    let mut d = Engine::new(o, report);
    let differences = d.top(Side { source: first }, Side { source: second }, names);
    Summary {
        differences,
        not_comparable: d.st.not_cmp,
        different_contents: d.st.different_contents,
        error: d.st.error,
        objects: d.objects,
    }
}

/// The values of two datasets (each a source and the dataset's id) compared under `o`, as
/// h5diff compares two named datasets without their attributes: the number of differences,
/// or why they are not comparable. Errors reading either are returned.
pub(super) fn compare_values<'a>(
    first: (&dyn Source<'a>, ObjectId),
    second: (&dyn Source<'a>, ObjectId),
    o: &CompareOptions,
    report: &mut dyn Reporter,
) -> crate::Result<(u64, Option<NotComparable>)> {
    // The datasets must read (the engine counts what does not as an error).
    first.0.dataset(first.1)?;
    second.0.dataset(second.1)?;
    let o = DiffOptions {
        values: o.clone(),
        ..DiffOptions::default()
    };
    let mut d = Engine::new(&o, report);
    let names = (String::new(), String::new());
    let n = d.dataset_values(first.0, second.0, first.1, second.1, ("", ""), &names);
    if d.st.error {
        crate::error::bail!(Raw, "the values of the datasets do not read");
    }
    Ok((n, d.reason))
}

impl<'o, 'r> Engine<'o, 'r> {
    fn new(o: &'o DiffOptions, r: &'r mut dyn Reporter) -> Self {
        Engine {
            o,
            st: Status::default(),
            r,
            subset_at: None,
            names: Default::default(),
            reason: None,
            attrs: Vec::new(),
            objects: Vec::new(),
        }
    }
}

impl Engine<'_, '_> {
    pub(super) fn not_comparable(&mut self, first: &str, second: &str, why: NotComparable) {
        self.r.event(Event::NotComparable {
            first,
            second,
            why: &why,
        });
        self.st.not_cmp = true;
        self.reason = Some(why);
    }

    fn top<'a>(&mut self, s1: Side<'a>, s2: Side<'a>, names: (Option<&str>, Option<&str>)) -> u64 {
        let o = self.o;
        if o.no_dangling_links && !o.follow_symlinks {
            self.st.error = true;
            return 0;
        }
        let full = |p: &str| {
            if p.starts_with('/') {
                p.to_string()
            } else {
                format!("/{}", p)
            }
        };
        let (obj1, obj2) = match names {
            (Some(a), Some(b)) => (full(a), full(b)),
            (Some(a), None) | (None, Some(a)) => (full(a), full(a)),
            _ => ("/".to_string(), "/".to_string()),
        };
        if o.subsets.iter().any(Option::is_some) {
            self.subset_at = Some((obj1.clone(), obj2.clone()));
        }
        // The kind of each named object.
        let mut kinds = [ObjectType::Group; 2];
        for (k, (side, obj)) in [(&s1, &obj1), (&s2, &obj2)].into_iter().enumerate() {
            if obj == "/" {
                continue;
            }
            match side.link(obj) {
                None => {
                    self.r.event(Event::ObjectNotFound { side: k, path: obj });
                    self.st.error = true;
                    return 0;
                }
                Some(LinkTarget::Hard(_)) => {
                    kinds[k] = side
                        .resolve(obj)
                        .and_then(|t| kind_of(&t))
                        .unwrap_or(ObjectType::Dataset);
                }
                Some(LinkTarget::Soft(_)) => kinds[k] = ObjectType::Link,
                Some(_) => kinds[k] = ObjectType::UdLink,
            }
        }
        let mut nfound = 0u64;
        if o.follow_symlinks {
            let states = [s1.symlink_state(&obj1), s2.symlink_state(&obj2)];
            let both = matches!(states[0], LinkState::Dangling)
                && matches!(states[1], LinkState::Dangling);
            for (k, obj) in [&obj1, &obj2].into_iter().enumerate() {
                match &states[k] {
                    LinkState::Dangling => {
                        if o.no_dangling_links {
                            self.r.event(Event::DanglingRefused { path: obj });
                            self.st.error = true;
                            return 0;
                        }
                        self.r.event(Event::Dangling { side: k, path: obj });
                        if !both {
                            nfound += 1;
                            self.r.event(Event::NamedDangling);
                            return nfound;
                        }
                    }
                    LinkState::Found(t) => {
                        if let Some(kk) = kind_of(t) {
                            kinds[k] = kk;
                        }
                    }
                    LinkState::Hard => {}
                }
            }
        }
        let t1 = s1.resolve(&obj1);
        let t2 = s2.resolve(&obj2);
        if !o.visit_identical {
            if let (Some(a), Some(b)) = (&t1, &t2) {
                if obj_key(a) == obj_key(b) {
                    return 0;
                }
            }
        }
        let both_groups = kinds[0] == ObjectType::Group && kinds[1] == ObjectType::Group;
        let (list1, list2) = if both_groups {
            (
                traverse(&s1, &obj1, o, &mut self.st),
                traverse(&s2, &obj2, o, &mut self.st),
            )
        } else {
            let one = |kind: ObjectType, path: &str, t: &Option<Target<'_>>| Entry {
                path: path.to_string(),
                kind,
                obj: t.as_ref().map(obj_key),
            };
            (
                vec![one(kinds[0], &obj1, &t1)],
                vec![one(kinds[1], &obj2, &t2)],
            )
        };
        // Co-sequential match of the relative paths.
        let off1 = if obj1 == "/" { 0 } else { obj1.len() };
        let off2 = if obj2 == "/" { 0 } else { obj2.len() };
        let rel = |e: &Entry, off: usize| e.path.get(off..).unwrap_or("").to_string();
        let mut table: Vec<(String, Option<usize>, Option<usize>)> = Vec::new();
        let mut groups = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < list1.len() || j < list2.len() {
            let a = list1.get(i).map(|e| rel(e, off1));
            let b = list2.get(j).map(|e| rel(e, off2));
            let (name, x, y, kind) = match (&a, &b) {
                (Some(a), Some(b)) if a == b => {
                    let r = (a.clone(), Some(i), Some(j), list1[i].kind);
                    i += 1;
                    j += 1;
                    r
                }
                (Some(a), Some(b)) if a.as_bytes() < b.as_bytes() => {
                    let r = (a.clone(), Some(i), None, list1[i].kind);
                    i += 1;
                    r
                }
                (Some(a), None) => {
                    let r = (a.clone(), Some(i), None, list1[i].kind);
                    i += 1;
                    r
                }
                (_, Some(b)) => {
                    let r = (b.clone(), None, Some(j), list2[j].kind);
                    j += 1;
                    r
                }
                (None, None) => break,
            };
            if !excluded(o, &name, &mut groups, kind) {
                table.push((name, x, y));
            }
        }
        if both_groups {
            let rows: Vec<PairRow> = table
                .iter()
                .map(|(name, x, y)| PairRow {
                    name: name.clone(),
                    in_first: x.is_some(),
                    in_second: y.is_some(),
                })
                .collect();
            self.r.event(Event::Pairs {
                named: obj1 != "/" || obj2 != "/",
                rows: &rows,
            });
        }
        if o.exclude_paths.is_empty() && list1.len() != list2.len() {
            self.st.different_contents = true;
        }
        if table.iter().any(|(_, x, y)| x.is_some() != y.is_some()) {
            self.st.different_contents = true;
        }
        let g1 = if obj1 == "/" { "" } else { obj1.as_str() };
        let g2 = if obj2 == "/" { "" } else { obj2.as_str() };
        self.r.event(Event::Comparing(table.len() as u64));
        for (name, x, y) in &table {
            let (Some(x), Some(y)) = (x, y) else { continue };
            let p1 = format!("{}{}", g1, name);
            let p2 = format!("{}{}", g2, name);
            let (e1, e2) = (&list1[*x], &list2[*y]);
            let same = e1.obj.is_some() && e1.obj == e2.obj;
            let p1 = if p1.is_empty() { "/".to_string() } else { p1 };
            let p2 = if p2.is_empty() { "/".to_string() } else { p2 };
            nfound += self.pair(&s1, &s2, &p1, &p2, e1.kind, e2.kind, same);
            self.r.event(Event::Compared);
        }
        nfound
    }

    /// Record the outcome of the pair at `p1` and `p2` (with the attributes compared since
    /// the last one).
    fn record(&mut self, kind: ObjectType, p1: &str, p2: &str, n: u64) {
        self.objects.push(ObjectResult {
            first: p1.to_string(),
            second: p2.to_string(),
            kind,
            outcome: Outcome::of(self.reason.take(), n),
            attributes: std::mem::take(&mut self.attrs),
        });
    }

    /// The end of a pair: the event, and its attributes (unless excluded).
    fn end(
        &mut self,
        kind: ObjectType,
        t: Option<(&Target<'_>, &Target<'_>)>,
        p: (&str, &str),
        n: u64,
    ) -> u64 {
        let (p1, p2) = p;
        self.r.event(Event::End {
            kind,
            first: p1,
            second: p2,
            differences: n,
            external: false,
        });
        let outcome = self.reason.take();
        let mut total = n;
        if let Some((t1, t2)) = t {
            if !self.o.exclude_attributes.iter().any(|x| x == p1) {
                total += self.attributes(t1, t2, p1, p2);
            }
        }
        self.reason = outcome;
        self.record(kind, p1, p2, n);
        total
    }

    /// `diff`: compare the objects at `p1` and `p2` of kinds `k1` and `k2`.
    #[allow(clippy::too_many_arguments)]
    fn pair<'a>(
        &mut self,
        s1: &Side<'a>,
        s2: &Side<'a>,
        p1: &str,
        p2: &str,
        mut k1: ObjectType,
        mut k2: ObjectType,
        same_target: bool,
    ) -> u64 {
        let mut nfound = 0u64;
        let (mut dangle1, mut dangle2) = (false, false);
        let links = matches!(k1, ObjectType::Link | ObjectType::UdLink)
            || matches!(k2, ObjectType::Link | ObjectType::UdLink);
        let (mut l1, mut l2) = (None, None);
        if links {
            if self.o.follow_symlinks {
                for (side, p, dangle, k) in [
                    (s1, p1, &mut dangle1, &mut k1),
                    (s2, p2, &mut dangle2, &mut k2),
                ] {
                    match side.symlink_state(p) {
                        LinkState::Dangling => {
                            if self.o.no_dangling_links {
                                self.r.event(Event::DanglingRefused { path: p });
                                self.st.error = true;
                                return 0;
                            }
                            *dangle = true;
                        }
                        LinkState::Found(t) => {
                            if let Some(kk) = kind_of(&t) {
                                *k = kk;
                            }
                        }
                        LinkState::Hard => {}
                    }
                }
            }
            l1 = s1.link(p1);
            l2 = s2.link(p2);
        }
        if dangle1 || dangle2 {
            if dangle1 && dangle2 {
                self.r.event(Event::BothDangling {
                    first: p1,
                    second: p2,
                });
            } else {
                let (side, p) = if dangle1 { (0, p1) } else { (1, p2) };
                self.r.event(Event::Dangling { side, path: p });
                nfound += 1;
                self.r.event(Event::OneDangling);
            }
            self.record(k1, p1, p2, nfound);
            return nfound;
        }
        if k1 != k2 {
            self.not_comparable(
                p1,
                p2,
                NotComparable::ObjectTypes {
                    first: k1,
                    second: k2,
                },
            );
            self.record(k1, p1, p2, 0);
            return 0;
        }
        let hard = matches!(
            k1,
            ObjectType::Dataset | ObjectType::Datatype | ObjectType::Group
        );
        if same_target && (self.o.follow_symlinks || hard) {
            self.r.event(Event::SameObject {
                kind: k1,
                first: p1,
                second: p2,
            });
            self.record(k1, p1, p2, 0);
            return 0;
        }
        let ends = (s1.resolve(p1), s2.resolve(p2));
        let begin = |d: &mut Self| {
            d.r.event(Event::Begin {
                kind: k1,
                first: p1,
                second: p2,
            })
        };
        match k1 {
            ObjectType::Dataset => {
                let (Some(t1), Some(t2)) = &ends else {
                    self.st.error = true;
                    return 0;
                };
                let names = (basename(p1).to_string(), basename(p2).to_string());
                begin(self);
                let n = self.dataset_ids(t1, t2, (p1, p2), &names);
                nfound = self.end(k1, Some((t1, t2)), (p1, p2), n);
            }
            ObjectType::Datatype => {
                let (Some(t1), Some(t2)) = &ends else {
                    self.st.error = true;
                    return 0;
                };
                begin(self);
                let a = t1.source.named_datatype(t1.id).ok();
                let b = t2.source.named_datatype(t2.id).ok();
                let n = u64::from(a.is_none() || a != b);
                nfound = self.end(k1, Some((t1, t2)), (p1, p2), n);
            }
            ObjectType::Group => {
                begin(self);
                let (Some(t1), Some(t2)) = &ends else {
                    self.r.event(Event::End {
                        kind: k1,
                        first: p1,
                        second: p2,
                        differences: 0,
                        external: false,
                    });
                    self.st.error = true;
                    return 0;
                };
                nfound = self.end(k1, Some((t1, t2)), (p1, p2), 0);
            }
            ObjectType::Link => {
                begin(self);
                let v = |l: &Option<LinkTarget>| match l {
                    Some(LinkTarget::Soft(t)) => Some(t.clone()),
                    _ => None,
                };
                nfound = self.end(k1, None, (p1, p2), u64::from(v(&l1) != v(&l2)));
            }
            ObjectType::UdLink => {
                begin(self);
                let ext = matches!(l1, Some(LinkTarget::External { .. }))
                    && matches!(l2, Some(LinkTarget::External { .. }));
                nfound = u64::from(l1 != l2);
                self.r.event(Event::End {
                    kind: k1,
                    first: p1,
                    second: p2,
                    differences: nfound,
                    external: ext,
                });
                self.record(k1, p1, p2, nfound);
            }
        }
        nfound
    }
}

fn basename(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}
