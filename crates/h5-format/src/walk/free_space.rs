//! Free-space managers: the file's (persistent free space and paged aggregation, from the
//! File Space Info message of the superblock extension) and fractal heaps'. The header and
//! its serialized section list must agree (counts, total space, back pointer), every section
//! must be of a known class, non-empty, inside its address space (for the file: inside the
//! end of file), and sections must not overlap.

use super::Walker;
use crate::free_space::{
    FreeSpaceHeader, SectionClasses, SectionList, CLIENT_FILE, CLIENT_FRACTAL_HEAP,
};
use crate::message::fs_info::FileSpaceInfo;
use crate::Addr;

const FSHD: &str = "free-space manager header";
const FSSE: &str = "free-space section list";

/// The client of a free-space manager, which fixes its section classes.
#[derive(Clone, Copy)]
pub(crate) enum Client {
    /// The file: classes simple, small and large (early libraries: simple only).
    File,
    /// A fractal heap with block offsets of `heap_offset_size` bytes.
    Heap { heap_offset_size: usize },
}

impl Client {
    fn id(self) -> u8 {
        match self {
            Client::File => CLIENT_FILE,
            Client::Heap { .. } => CLIENT_FRACTAL_HEAP,
        }
    }

    /// Section classes the reference library defines for the client.
    fn classes(self) -> u16 {
        match self {
            Client::File => 3,
            Client::Heap { .. } => 4,
        }
    }

    fn section_classes(self) -> SectionClasses {
        match self {
            Client::File => SectionClasses::File,
            Client::Heap { heap_offset_size } => SectionClasses::FractalHeap { heap_offset_size },
        }
    }
}

impl Walker<'_> {
    /// The free-space managers named by the File Space Info message.
    pub(crate) fn file_space_info(&mut self, at: u64, info: &FileSpaceInfo) {
        const PATH: &str = "superblock extension";
        let managers: &[Addr] = match info {
            FileSpaceInfo::V0 { managers, .. } => managers.as_deref().unwrap_or(&[]),
            FileSpaceInfo::V1 {
                managers,
                eoa_pre_fsm_alloc,
                ..
            } => {
                if let Some(e) = eoa_pre_fsm_alloc.get() {
                    if e > self.eoa {
                        self.problem(
                            "file space info message",
                            at,
                            format!(
                                "the end of file address before the free-space managers, {e:#x}, is past the end of file address {:#x}",
                                self.eoa
                            ),
                        );
                    }
                }
                managers
            }
        };
        // Memory types may share a manager: each is walked once.
        let mut done = Vec::new();
        for &m in managers {
            if m.is_undef() || done.contains(&m) {
                continue;
            }
            done.push(m);
            self.free_space_manager(m, Client::File, PATH);
        }
    }

    /// The free-space manager at `addr` of `client`, with its section list.
    pub(crate) fn free_space_manager(&mut self, addr: Addr, client: Client, path: &str) {
        if !self.budget() || !self.first_visit(FSHD, addr.0, path) {
            return;
        }
        let size = FreeSpaceHeader::encoded_size(self.sizes) as u64;
        let r = self
            .bytes(FSHD, addr, size)
            .and_then(|b| FreeSpaceHeader::parse(&mut self.cursor(&b, addr)));
        let h = match r {
            Ok(h) => h,
            Err(e) => return self.error(e, FSHD, addr.0, path),
        };
        let a = addr.0;
        if h.client != client.id() {
            self.problem(
                FSHD,
                a,
                format!(
                    "client {} where {} is expected (in {path})",
                    h.client,
                    client.id()
                ),
            );
            return;
        }
        if h.section_classes == 0 || h.section_classes > client.classes() {
            self.problem(
                FSHD,
                a,
                format!(
                    "{} section classes (the client has {}) (in {path})",
                    h.section_classes,
                    client.classes()
                ),
            );
        }
        if h.serialized_sections.checked_add(h.ghost_sections) != Some(h.total_sections) {
            self.problem(
                FSHD,
                a,
                format!(
                    "{} sections in all, but {} serialized and {} not (in {path})",
                    h.total_sections, h.serialized_sections, h.ghost_sections
                ),
            );
        }
        if h.section_list.is_undef() {
            if h.serialized_sections > 0 {
                self.problem(
                    FSHD,
                    a,
                    format!(
                        "{} serialized sections but no section list (in {path})",
                        h.serialized_sections
                    ),
                );
            }
            return;
        }
        if h.serialized_sections == 0 {
            // An allocated but empty list: nothing to read.
            return;
        }
        if h.section_list_used > h.section_list_allocated {
            self.problem(
                FSHD,
                a,
                format!(
                    "the section list uses {} bytes of the {} allocated (in {path})",
                    h.section_list_used, h.section_list_allocated
                ),
            );
        }
        let list = h.section_list;
        let span = h.section_list_used.max(h.section_list_allocated);
        if !self.budget()
            || !self.first_visit(FSSE, list.0, path)
            || !self.check_range(FSSE, list, span, "free-space section list", path)
        {
            return;
        }
        let r = self.bytes(FSSE, list, h.section_list_used).and_then(|b| {
            SectionList::parse(&mut self.cursor(&b, list), &h, client.section_classes())
        });
        let l = match r {
            Ok(l) => l,
            Err(e) => return self.error(e, FSSE, list.0, path),
        };
        self.sections(&h, addr, &l, client, path);
    }

    /// The sections of list `l` against its header `h` (at `addr`).
    fn sections(
        &mut self,
        h: &FreeSpaceHeader,
        addr: Addr,
        l: &SectionList,
        client: Client,
        path: &str,
    ) {
        let at = h.section_list.0;
        if l.header != addr {
            self.problem(
                FSSE,
                at,
                format!("header address {} instead of {addr} (in {path})", l.header),
            );
        }
        let count: u64 = l.sets.iter().map(|s| s.sections.len() as u64).sum();
        if count != h.serialized_sections {
            self.problem(
                FSSE,
                at,
                format!(
                    "{count} sections where the header counts {} serialized (in {path})",
                    h.serialized_sections
                ),
            );
        }
        let mut space = 0u64;
        // (offset, size) of the sections that must not overlap.
        let mut ranges = Vec::new();
        let limit = match client {
            Client::File => self.eoa,
            Client::Heap { .. } => 1u64
                .checked_shl(u32::from(h.address_space_bits))
                .unwrap_or(u64::MAX),
        };
        let mut bad = 0usize;
        for set in &l.sets {
            if set.size == 0 || set.sections.is_empty() {
                self.problem(
                    FSSE,
                    at,
                    format!(
                        "a set of {} sections of size {} (in {path})",
                        set.sections.len(),
                        set.size
                    ),
                );
                continue;
            }
            for s in &set.sections {
                space = space.saturating_add(set.size);
                let mut msg = None;
                if u16::from(s.kind) >= h.section_classes {
                    msg = Some(format!(
                        "section at {:#x}: class {} of the {} the header declares",
                        s.offset, s.kind, h.section_classes
                    ));
                } else if s.offset.checked_add(set.size).is_none_or(|e| e > limit) {
                    msg = Some(format!(
                        "section at {:#x} of {} bytes runs past the end of its address space ({limit:#x})",
                        s.offset, set.size
                    ));
                }
                if let Some(m) = msg {
                    // One problem per list is enough to name it; count the rest.
                    bad += 1;
                    if bad == 1 {
                        self.problem(FSSE, at, format!("{m} (in {path})"));
                    }
                    continue;
                }
                // Fractal heap row and indirect sections describe blocks not yet allocated
                // and the rows inside them, so they nest; single sections (class 0) are
                // free space inside allocated blocks and never overlap anything.
                if matches!(client, Client::File) || s.kind == 0 {
                    ranges.push((s.offset, set.size));
                }
                if matches!(client, Client::File) {
                    self.free_sections.push((s.offset, set.size, at));
                }
            }
        }
        if bad > 1 {
            self.problem(
                FSSE,
                at,
                format!("{} more sections are bad the same way (in {path})", bad - 1),
            );
        }
        if h.ghost_sections == 0 && space != h.total_space {
            self.problem(
                FSSE,
                at,
                format!(
                    "the sections hold {space} bytes, the header tracks {} (in {path})",
                    h.total_space
                ),
            );
        }
        ranges.sort_unstable();
        for w in ranges.windows(2) {
            let (a, b) = (w[0], w[1]);
            if a.0.saturating_add(a.1) > b.0 {
                self.problem(
                    FSSE,
                    at,
                    format!(
                        "section at {:#x} of {} bytes overlaps the section at {:#x} (in {path})",
                        a.0, a.1, b.0
                    ),
                );
                break;
            }
        }
    }

    /// Free space must not hold anything in use: no object header or other structure the walk
    /// visited may start inside a free section of the file.
    pub(crate) fn free_space_in_use(&mut self) {
        if self.free_sections.is_empty() {
            return;
        }
        let mut sections = std::mem::take(&mut self.free_sections);
        sections.sort_unstable();
        let mut used: Vec<(u64, &'static str)> = self
            .headers
            .iter()
            .map(|&a| (a, "object header"))
            .chain(self.seen.iter().map(|&(k, a)| (a, k)))
            .chain(self.gcols.keys().map(|&a| (a, "global heap collection")))
            .collect();
        used.sort_unstable();
        let mut found = Vec::new();
        for (a, kind) in used {
            // The last section starting at or before `a`.
            let i = sections.partition_point(|s| s.0 <= a);
            if let Some(&(off, size, list)) = i.checked_sub(1).and_then(|i| sections.get(i)) {
                if a < off.saturating_add(size) {
                    found.push((list, off, size, a, kind));
                }
            }
        }
        for (list, off, size, a, kind) in found.iter().take(16) {
            self.problem(
                FSSE,
                *list,
                format!(
                    "the free section at {off:#x} of {size} bytes holds the {kind} at {a:#x}, which is in use"
                ),
            );
        }
        if found.len() > 16 {
            self.problem(
                FSSE,
                found[0].0,
                format!(
                    "{} more structures in use lie in free sections",
                    found.len() - 16
                ),
            );
        }
    }
}
