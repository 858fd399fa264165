//! An in-memory [`DumpFile`]: objects, links, attributes and data built by hand (tests) or
//! loaded from a simple text description (see [`MemoryFile::from_text`]).

use std::collections::{BTreeMap, HashMap};

use h5::types::Datatype;

use super::model::*;

/// One object of a [`MemoryFile`].
#[derive(Clone, Debug)]
pub struct MemObject {
    /// Basic information.
    pub info: ObjInfo,
    /// Links in creation order (groups).
    pub links: Vec<Link>,
    /// Attributes in creation order, with their values in the file datatype.
    pub attrs: Vec<(AttrInfo, Vec<u8>)>,
    /// Dataset header and all its elements in the file datatype.
    pub dataset: Option<(DatasetInfo, Vec<u8>)>,
    /// Named datatype.
    pub datatype: Option<Datatype>,
}

/// A file held in memory.
#[derive(Clone, Debug, Default)]
pub struct MemoryFile {
    /// Root group id.
    pub root: ObjId,
    /// Objects by id.
    pub objects: BTreeMap<ObjId, MemObject>,
    /// Variable-length sequences; a descriptor is the index (u64 LE) followed by 8 zero bytes,
    /// and index `u64::MAX` is a null sequence.
    pub vlens: Vec<Vec<u8>>,
    /// Reference targets by their encoded bytes.
    pub refs: HashMap<Vec<u8>, RefTarget>,
    /// Superblock information.
    pub superblock: SuperblockInfo,
    next_id: u64,
}

fn info(kind: ObjKind, addr: u64) -> ObjInfo {
    ObjInfo {
        kind,
        addr,
        refcount: 1,
        comment: None,
        links_order_tracked: false,
        attrs_order_tracked: false,
        mtime: 0,
    }
}

fn default_dataset(datatype: TypeRef, space: Space) -> DatasetInfo {
    let n = space.npoints() * datatype.datatype.size() as u64;
    DatasetInfo {
        datatype,
        space,
        layout: Layout::Contiguous { offset: None },
        filters: Vec::new(),
        fill: FillInfo {
            alloc_time: 2,
            fill_time: 2,
            value: Some(None),
        },
        storage_size: n,
        external: Vec::new(),
    }
}

impl MemoryFile {
    /// An empty file with a root group at address 96.
    pub fn new() -> Self {
        let mut f = MemoryFile {
            root: 96,
            next_id: 800,
            ..Default::default()
        };
        f.objects.insert(
            96,
            MemObject {
                info: info(ObjKind::Group, 96),
                links: Vec::new(),
                attrs: Vec::new(),
                dataset: None,
                datatype: None,
            },
        );
        f
    }

    fn alloc(&mut self, kind: ObjKind) -> ObjId {
        let id = self.next_id;
        self.next_id += 800;
        self.objects.insert(
            id,
            MemObject {
                info: info(kind, id),
                links: Vec::new(),
                attrs: Vec::new(),
                dataset: None,
                datatype: None,
            },
        );
        id
    }

    /// Add a link to a group.
    pub fn link(&mut self, group: ObjId, name: &str, target: LinkTarget) {
        let is_hard_existing = matches!(target, LinkTarget::Hard(id) if self.has_link_to(id));
        if let (true, LinkTarget::Hard(id)) = (is_hard_existing, &target) {
            if let Some(o) = self.objects.get_mut(id) {
                o.info.refcount += 1;
            }
        }
        if let Some(g) = self.objects.get_mut(&group) {
            g.links.push(Link {
                name: name.to_string(),
                target,
            });
        }
    }

    fn has_link_to(&self, id: ObjId) -> bool {
        self.objects
            .values()
            .any(|o| o.links.iter().any(|l| l.target == LinkTarget::Hard(id)))
    }

    /// Add a new group under `parent`.
    pub fn add_group(&mut self, parent: ObjId, name: &str) -> ObjId {
        let id = self.alloc(ObjKind::Group);
        self.link(parent, name, LinkTarget::Hard(id));
        id
    }

    /// Add a new dataset under `parent` with all its elements in `data`.
    pub fn add_dataset(
        &mut self,
        parent: ObjId,
        name: &str,
        datatype: impl Into<TypeRef>,
        space: Space,
        data: Vec<u8>,
    ) -> ObjId {
        let id = self.alloc(ObjKind::Dataset);
        if let Some(o) = self.objects.get_mut(&id) {
            o.dataset = Some((default_dataset(datatype.into(), space), data));
        }
        self.link(parent, name, LinkTarget::Hard(id));
        id
    }

    /// Add a named datatype under `parent`.
    pub fn add_named_type(&mut self, parent: ObjId, name: &str, t: Datatype) -> ObjId {
        let id = self.alloc(ObjKind::NamedDatatype);
        if let Some(o) = self.objects.get_mut(&id) {
            o.datatype = Some(t);
        }
        self.link(parent, name, LinkTarget::Hard(id));
        id
    }

    /// Add an attribute to an object.
    pub fn add_attr(
        &mut self,
        obj: ObjId,
        name: &str,
        datatype: impl Into<TypeRef>,
        space: Space,
        data: Vec<u8>,
    ) {
        if let Some(o) = self.objects.get_mut(&obj) {
            o.attrs.push((
                AttrInfo {
                    name: name.to_string(),
                    datatype: datatype.into(),
                    space,
                },
                data,
            ));
        }
    }

    /// Store a variable-length sequence (or string) and return its descriptor bytes.
    pub fn vlen(&mut self, data: Option<Vec<u8>>) -> Vec<u8> {
        let idx = match data {
            Some(d) => {
                self.vlens.push(d);
                (self.vlens.len() - 1) as u64
            }
            None => u64::MAX,
        };
        let mut v = idx.to_le_bytes().to_vec();
        v.extend_from_slice(&[0; 8]);
        v
    }

    /// Mutable access to an object.
    pub fn object_mut(&mut self, id: ObjId) -> Option<&mut MemObject> {
        self.objects.get_mut(&id)
    }

    fn obj(&self, id: ObjId) -> ModelResult<&MemObject> {
        self.objects
            .get(&id)
            .ok_or_else(|| format!("no object at address {}", id))
    }
}

fn unhex(s: &str) -> ModelResult<Vec<u8>> {
    if s == "~" {
        return Ok(Vec::new());
    }
    if !s.len().is_multiple_of(2) {
        return Err(format!("odd hex length in {:?}", s));
    }
    (0..s.len() / 2)
        .map(|i| {
            u8::from_str_radix(s.get(2 * i..2 * i + 2).unwrap_or("zz"), 16)
                .map_err(|e| format!("bad hex {:?}: {}", s, e))
        })
        .collect()
}

fn unhex_str(s: &str) -> ModelResult<String> {
    Ok(String::from_utf8_lossy(&unhex(s)?).into_owned())
}

fn num(s: Option<&str>) -> ModelResult<u64> {
    s.ok_or("missing field")?
        .parse()
        .map_err(|e| format!("bad number: {}", e))
}

fn parse_type(text_hex: &str, size: &str) -> ModelResult<Datatype> {
    let text = unhex_str(text_hex)?;
    let mut t: Datatype = text
        .parse()
        .map_err(|e| format!("cannot parse datatype {:?}: {}", text, e))?;
    let size: usize = size.parse().map_err(|_| "bad type size".to_string())?;
    if let Datatype::Compound(c) = &mut t {
        if c.size() != size {
            c.set_size(size).map_err(|e| e.to_string())?;
        }
    }
    Ok(t)
}

fn parse_typeref(text_hex: &str, size: &str, committed: &str) -> ModelResult<TypeRef> {
    Ok(TypeRef {
        datatype: parse_type(text_hex, size)?,
        committed: if committed == "-" {
            None
        } else {
            Some(num(Some(committed))?)
        },
    })
}

fn parse_vds_selection(s: &str) -> ModelResult<VdsSelection> {
    let nums = |p: &str| -> Vec<u64> {
        p.split(',')
            .filter(|x| !x.is_empty())
            .map(|x| {
                if x == "U" {
                    u64::MAX
                } else {
                    x.parse().unwrap_or(0)
                }
            })
            .collect()
    };
    let parts: Vec<&str> = s.split(':').collect();
    Ok(match parts.first().copied() {
        Some("A") => VdsSelection::All,
        Some("R") => VdsSelection::Regular {
            start: nums(parts.get(1).unwrap_or(&"")),
            stride: nums(parts.get(2).unwrap_or(&"")),
            count: nums(parts.get(3).unwrap_or(&"")),
            block: nums(parts.get(4).unwrap_or(&"")),
        },
        Some("B") => VdsSelection::Blocks(
            parts[1..]
                .iter()
                .map(|b| {
                    let (a, c) = b.split_once('-').unwrap_or((b, ""));
                    (nums(a), nums(c))
                })
                .collect(),
        ),
        Some("P") => VdsSelection::Points(parts[1..].iter().map(|p| nums(p)).collect()),
        _ => VdsSelection::None,
    })
}

fn parse_space(s: &str) -> ModelResult<Space> {
    match s {
        "N" => Ok(Space::Null),
        "S" => Ok(Space::Scalar),
        _ => {
            let mut parts = s.split(':').skip(1);
            let list = |p: Option<&str>| -> ModelResult<Vec<u64>> {
                p.unwrap_or("")
                    .split(',')
                    .filter(|x| !x.is_empty())
                    .map(|x| {
                        if x == "U" {
                            Ok(u64::MAX)
                        } else {
                            x.parse().map_err(|_| format!("bad dimension {:?}", x))
                        }
                    })
                    .collect()
            };
            let dims = list(parts.next())?;
            let maxdims = list(parts.next())?;
            Ok(Space::Simple { dims, maxdims })
        }
    }
}

impl MemoryFile {
    /// Load the line-based description written by the test oracle `dump_export` (one record
    /// per line; strings and bytes hex-encoded): `R root`, `B superblock fields`, `O object`,
    /// `L link`, `A attribute`, `D dataset`, `F filter`, `X external file`, `T named type`,
    /// `V vlen data`, `P reference target`.
    pub fn from_text(text: &str) -> ModelResult<MemoryFile> {
        let mut f = MemoryFile::default();
        for (lineno, line) in text.lines().enumerate() {
            let r: ModelResult<()> = (|| {
                let mut w = line.split(' ');
                let tag = w.next().unwrap_or("");
                match tag {
                    "R" => f.root = num(w.next())?,
                    "B" => {
                        let v: Vec<u64> = w.map(|x| x.parse().unwrap_or(0)).collect();
                        let g = |i: usize| v.get(i).copied().unwrap_or(0);
                        f.superblock = SuperblockInfo {
                            super_version: g(0) as u32,
                            freelist_version: g(1) as u32,
                            symboltable_version: g(2) as u32,
                            objectheader_version: g(3) as u32,
                            offset_size: g(4) as u32,
                            length_size: g(5) as u32,
                            btree_rank: g(6) as u32,
                            btree_leaf: g(7) as u32,
                            istore_k: g(8) as u32,
                            fs_strategy: match g(9) {
                                0 => "H5F_FSPACE_STRATEGY_FSM_AGGR",
                                1 => "H5F_FSPACE_STRATEGY_PAGE",
                                2 => "H5F_FSPACE_STRATEGY_AGGR",
                                _ => "H5F_FSPACE_STRATEGY_NONE",
                            }
                            .into(),
                            fs_persist: g(10) != 0,
                            fs_threshold: g(11),
                            fs_page_size: g(12),
                            userblock_size: g(13),
                        };
                    }
                    "O" => {
                        let addr = num(w.next())?;
                        let kind = match w.next() {
                            Some("g") => ObjKind::Group,
                            Some("d") => ObjKind::Dataset,
                            _ => ObjKind::NamedDatatype,
                        };
                        let rc = num(w.next())? as u32;
                        let lt = w.next() == Some("1");
                        let at = w.next() == Some("1");
                        let comment = match w.next() {
                            Some("-") | None => None,
                            Some(h) => Some(unhex_str(h)?),
                        };
                        f.objects.insert(
                            addr,
                            MemObject {
                                info: ObjInfo {
                                    kind,
                                    addr,
                                    refcount: rc,
                                    comment,
                                    links_order_tracked: lt,
                                    attrs_order_tracked: at,
                                    mtime: 0,
                                },
                                links: Vec::new(),
                                attrs: Vec::new(),
                                dataset: None,
                                datatype: None,
                            },
                        );
                    }
                    "L" => {
                        let g = num(w.next())?;
                        let name = unhex_str(w.next().unwrap_or("~"))?;
                        let target = match w.next() {
                            Some("H") => LinkTarget::Hard(num(w.next())?),
                            Some("S") => LinkTarget::Soft(unhex_str(w.next().unwrap_or("~"))?),
                            Some("E") => LinkTarget::External {
                                file: unhex_str(w.next().unwrap_or("~"))?,
                                path: unhex_str(w.next().unwrap_or("~"))?,
                            },
                            _ => LinkTarget::UserDefined(num(w.next())? as u8),
                        };
                        let o = f.objects.get_mut(&g).ok_or("link in unknown group")?;
                        o.links.push(Link { name, target });
                    }
                    "A" => {
                        let obj = num(w.next())?;
                        let name = unhex_str(w.next().unwrap_or("~"))?;
                        let (t, sz, c) = (w.next(), w.next(), w.next());
                        let datatype =
                            parse_typeref(t.unwrap_or(""), sz.unwrap_or("0"), c.unwrap_or("-"))?;
                        let space = parse_space(w.next().unwrap_or("N"))?;
                        let data = unhex(w.next().unwrap_or("~"))?;
                        let o = f
                            .objects
                            .get_mut(&obj)
                            .ok_or("attribute on unknown object")?;
                        o.attrs.push((
                            AttrInfo {
                                name,
                                datatype,
                                space,
                            },
                            data,
                        ));
                    }
                    "D" => {
                        let id = num(w.next())?;
                        let (t, sz, c) = (w.next(), w.next(), w.next());
                        let datatype =
                            parse_typeref(t.unwrap_or(""), sz.unwrap_or("0"), c.unwrap_or("-"))?;
                        let space = parse_space(w.next().unwrap_or("N"))?;
                        let lay = w.next().unwrap_or("contiguous");
                        let storage = num(w.next())?;
                        let offset = match w.next() {
                            Some("-") | None => None,
                            Some(x) => Some(num(Some(x))?),
                        };
                        let alloc = num(w.next())? as u8;
                        let ft = num(w.next())? as u8;
                        let fv = num(w.next())?;
                        let fill_bytes = w.next().unwrap_or("-");
                        let data = match w.next() {
                            Some("-") | None => Vec::new(),
                            Some(h) => unhex(h)?,
                        };
                        let layout = if let Some(d) = lay.strip_prefix("chunked:") {
                            Layout::Chunked {
                                dims: d.split(',').filter_map(|x| x.parse().ok()).collect(),
                            }
                        } else if lay == "compact" {
                            Layout::Compact
                        } else if lay == "virtual" {
                            Layout::Virtual {
                                mappings: Vec::new(),
                            }
                        } else {
                            Layout::Contiguous { offset }
                        };
                        let value = match fv {
                            0 => None,
                            1 => Some(None),
                            _ => Some(if fill_bytes == "-" {
                                None
                            } else {
                                Some(unhex(fill_bytes)?)
                            }),
                        };
                        let info = DatasetInfo {
                            datatype,
                            space,
                            layout,
                            filters: Vec::new(),
                            fill: FillInfo {
                                alloc_time: alloc,
                                fill_time: ft,
                                value,
                            },
                            storage_size: storage,
                            external: Vec::new(),
                        };
                        let o = f.objects.get_mut(&id).ok_or("dataset without object")?;
                        o.dataset = Some((info, data));
                    }
                    "F" => {
                        let id = num(w.next())?;
                        let fid = num(w.next())? as u16;
                        let name = match w.next() {
                            Some("-") | None => None,
                            Some(h) => Some(unhex_str(h)?),
                        };
                        let cd: Vec<u32> = w
                            .next()
                            .unwrap_or("-")
                            .split(',')
                            .filter_map(|x| x.parse().ok())
                            .collect();
                        if let Some((d, _)) =
                            f.objects.get_mut(&id).and_then(|o| o.dataset.as_mut())
                        {
                            d.filters.push(Filter {
                                id: fid,
                                name,
                                cd_values: cd,
                                optional: false,
                            });
                        }
                    }
                    "M" => {
                        let id = num(w.next())?;
                        let virtual_selection = parse_vds_selection(w.next().unwrap_or("N"))?;
                        let file = unhex_str(w.next().unwrap_or("~"))?;
                        let dataset = unhex_str(w.next().unwrap_or("~"))?;
                        let source_selection = parse_vds_selection(w.next().unwrap_or("N"))?;
                        if let Some((d, _)) =
                            f.objects.get_mut(&id).and_then(|o| o.dataset.as_mut())
                        {
                            if let Layout::Virtual { mappings } = &mut d.layout {
                                mappings.push(VirtualMapping {
                                    virtual_selection,
                                    file,
                                    dataset,
                                    source_selection,
                                });
                            }
                        }
                    }
                    "X" => {
                        let id = num(w.next())?;
                        let name = unhex_str(w.next().unwrap_or("~"))?;
                        let offset = num(w.next())?;
                        let size = num(w.next())?;
                        if let Some((d, _)) =
                            f.objects.get_mut(&id).and_then(|o| o.dataset.as_mut())
                        {
                            d.external.push(ExternalFile { name, offset, size });
                        }
                    }
                    "T" => {
                        let id = num(w.next())?;
                        let (t, sz) = (w.next(), w.next());
                        let t = parse_type(t.unwrap_or(""), sz.unwrap_or("0"))?;
                        let o = f.objects.get_mut(&id).ok_or("type without object")?;
                        o.datatype = Some(t);
                    }
                    "V" => {
                        let idx = num(w.next())? as usize;
                        let data = match w.next() {
                            Some("-") | None => Vec::new(),
                            Some(h) => unhex(h)?,
                        };
                        if f.vlens.len() <= idx {
                            f.vlens.resize(idx + 1, Vec::new());
                        }
                        f.vlens[idx] = data;
                    }
                    "P" => {
                        let key = unhex(w.next().unwrap_or("~"))?;
                        let target = match w.next() {
                            Some("O") => RefTarget::Object(num(w.next())?),
                            Some(kind) => {
                                let dataset = num(w.next())?;
                                let rank = num(w.next())? as usize;
                                let n = num(w.next())? as usize;
                                let vals: Vec<u64> = w.filter_map(|x| x.parse().ok()).collect();
                                let selection = if kind == "Q" {
                                    Region::Points(
                                        vals.chunks(rank.max(1))
                                            .take(n)
                                            .map(|c| c.to_vec())
                                            .collect(),
                                    )
                                } else {
                                    Region::Blocks(
                                        vals.chunks(2 * rank.max(1))
                                            .take(n)
                                            .map(|c| {
                                                (
                                                    c[..rank.min(c.len())].to_vec(),
                                                    c[rank.min(c.len())..].to_vec(),
                                                )
                                            })
                                            .collect(),
                                    )
                                };
                                RefTarget::Region { dataset, selection }
                            }
                            None => return Err("empty reference record".into()),
                        };
                        f.refs.insert(key, target);
                    }
                    "" => {}
                    other => return Err(format!("unknown record {:?}", other)),
                }
                Ok(())
            })();
            r.map_err(|e| format!("line {}: {}", lineno + 1, e))?;
        }
        Ok(f)
    }
}

fn sorted<T: Clone>(v: &[T], key: impl Fn(&T) -> &str, order: IndexOrder) -> Vec<T> {
    let mut out = v.to_vec();
    if order == IndexOrder::Name {
        out.sort_by(|a, b| key(a).as_bytes().cmp(key(b).as_bytes()));
    }
    out
}

impl DumpFile for MemoryFile {
    fn root(&self) -> ObjId {
        self.root
    }

    fn object_info(&self, id: ObjId) -> ModelResult<ObjInfo> {
        Ok(self.obj(id)?.info.clone())
    }

    fn links(&self, group: ObjId, order: IndexOrder) -> ModelResult<Vec<Link>> {
        Ok(sorted(&self.obj(group)?.links, |l| &l.name, order))
    }

    fn attributes(&self, obj: ObjId, order: IndexOrder) -> ModelResult<Vec<AttrInfo>> {
        let v: Vec<AttrInfo> = self
            .obj(obj)?
            .attrs
            .iter()
            .map(|(a, _)| a.clone())
            .collect();
        Ok(sorted(&v, |a| &a.name, order))
    }

    fn attribute_data(&self, obj: ObjId, name: &str) -> ModelResult<Vec<u8>> {
        self.obj(obj)?
            .attrs
            .iter()
            .find(|(a, _)| a.name == name)
            .map(|(_, d)| d.clone())
            .ok_or_else(|| format!("no attribute {:?}", name))
    }

    fn dataset(&self, id: ObjId) -> ModelResult<DatasetInfo> {
        self.obj(id)?
            .dataset
            .as_ref()
            .map(|(d, _)| d.clone())
            .ok_or_else(|| format!("object {} is not a dataset", id))
    }

    fn read(&self, id: ObjId, start: &[u64], count: &[u64]) -> ModelResult<Vec<u8>> {
        let (d, data) = self
            .obj(id)?
            .dataset
            .as_ref()
            .ok_or_else(|| format!("object {} is not a dataset", id))?;
        let size = d.datatype.datatype.size();
        let dims = d.space.dims();
        if dims.is_empty() {
            return Ok(data.clone());
        }
        if start.len() != dims.len() || count.len() != dims.len() {
            return Err("hyperslab rank does not match the dataspace".into());
        }
        let mut out = Vec::new();
        let n: u64 = count.iter().product();
        let mut idx = vec![0u64; dims.len()];
        for _ in 0..n {
            let mut lin = 0u64;
            for k in 0..dims.len() {
                lin = lin * dims[k] + start[k] + idx[k];
            }
            let off = lin as usize * size;
            out.extend_from_slice(
                data.get(off..off + size)
                    .ok_or_else(|| "hyperslab outside the data".to_string())?,
            );
            for k in (0..dims.len()).rev() {
                idx[k] += 1;
                if idx[k] < count[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
        Ok(out)
    }

    fn named_datatype(&self, id: ObjId) -> ModelResult<Datatype> {
        self.obj(id)?
            .datatype
            .clone()
            .ok_or_else(|| format!("object {} is not a named datatype", id))
    }

    fn vlen_data(&self, descriptor: &[u8]) -> ModelResult<Option<Vec<u8>>> {
        let mut b = [0u8; 8];
        b.copy_from_slice(descriptor.get(..8).ok_or("short vlen descriptor")?);
        let idx = u64::from_le_bytes(b);
        if idx == u64::MAX {
            return Ok(None);
        }
        self.vlens
            .get(idx as usize)
            .cloned()
            .map(Some)
            .ok_or_else(|| "bad vlen descriptor".into())
    }

    fn dereference(&self, reference: &[u8]) -> ModelResult<Option<RefTarget>> {
        Ok(self.refs.get(reference).cloned())
    }

    fn superblock(&self) -> ModelResult<SuperblockInfo> {
        Ok(self.superblock.clone())
    }
}
