//! Memory advice for the large buffers that reads fill.
//!
//! A read's result is a fresh allocation, and on Linux each 4 KiB page of it is faulted in
//! (allocated and zeroed by the kernel) at its first write: on a virtual machine that costs a
//! few microseconds a page, which for a 256 MiB result is 65,536 faults and more time than
//! decoding the data. The kernel backs a region with 2 MiB transparent huge pages, one fault
//! for 512 pages, when the region is advised (`madvise(MADV_HUGEPAGE)`) and the system's
//! transparent-huge-page mode is `madvise` (the common default) or `always`. numpy advises
//! every array of 4 MiB or more in the same way, so an h5py read gets huge pages too.
//!
//! [`advise_huge_pages`] is that advice; it changes no byte of the buffer and is nothing on
//! other systems, for buffers below [`HUGE_PAGE_MIN`], or where the kernel refuses it.
//!
//! This is the one crate of the workspace with `unsafe` (the workspace forbids it): two
//! blocks, `sysconf` for the page size and the `madvise` call, each proved beside it.
#![deny(unsafe_code)]

/// Buffers below this many bytes are not advised (numpy's threshold): a huge page pays off
/// only where the buffer holds whole 2 MiB stretches, and small buffers mostly come from
/// memory the allocator has touched already.
pub const HUGE_PAGE_MIN: usize = 4 << 20;

/// Ask the kernel to back the whole pages inside `buf` with transparent huge pages where it
/// can, before they are first written (pages already faulted in stay as they are until the
/// kernel collapses them).
///
/// Advice only: the contents of `buf` are unchanged, and whether the kernel follows it
/// depends on its configuration; a refusal is not an error. Returns whether the advice was
/// given (Linux, `buf` at least [`HUGE_PAGE_MIN`] bytes, and the kernel took it).
pub fn advise_huge_pages<T>(buf: &mut [T]) -> bool {
    let len = std::mem::size_of_val(buf);
    if len < HUGE_PAGE_MIN {
        return false;
    }
    imp::advise(buf.as_mut_ptr().cast::<u8>(), len)
}

#[cfg(target_os = "linux")]
mod imp {
    /// The page size: `sysconf(_SC_PAGESIZE)`, or 4 KiB if it does not answer.
    fn page_size() -> usize {
        // SAFETY: `sysconf` reads a configuration value; it takes no pointer and touches no
        // memory of ours.
        #[allow(unsafe_code)]
        let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        usize::try_from(p)
            .ok()
            .filter(|p| p.is_power_of_two())
            .unwrap_or(4096)
    }

    pub(super) fn advise(start: *mut u8, len: usize) -> bool {
        let page = page_size();
        let addr = start as usize;
        // The whole pages inside [addr, addr + len): the pages at either end may hold other
        // allocations' bytes, and the advice stays off them.
        let Some(first) = addr.checked_add(page - 1).map(|a| a & !(page - 1)) else {
            return false;
        };
        let end = (addr + len) & !(page - 1);
        if end <= first {
            return false;
        }
        let offset = first - addr;
        // SAFETY: `start + offset .. start + offset + (end - first)` lies inside the buffer
        // the caller holds a `&mut` borrow of (`first >= addr`, `end <= addr + len`), so it
        // is mapped memory of this process for the whole call, and the pointer keeps the
        // buffer's provenance (`add` within the allocation). `MADV_HUGEPAGE` only marks the
        // mappings covering the range as eligible for huge pages (splitting a mapping's
        // bookkeeping where the range starts or ends inside it): it frees, moves, unmaps or
        // changes no byte, and a later collapse into a huge page copies the bytes as they
        // are; so no memory Rust can observe changes. On an unsuitable range or a kernel
        // without transparent huge pages the call fails with an error code and nothing else.
        #[allow(unsafe_code)]
        let rc = unsafe {
            libc::madvise(
                start.add(offset).cast::<libc::c_void>(),
                end - first,
                libc::MADV_HUGEPAGE,
            )
        };
        rc == 0
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub(super) fn advise(_start: *mut u8, _len: usize) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the kernel takes the advice: Linux with transparent huge pages compiled in.
    fn thp_available() -> bool {
        cfg!(target_os = "linux")
            && std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists()
    }

    #[test]
    fn small_buffers_are_not_advised() {
        let mut v = vec![0u8; HUGE_PAGE_MIN - 1];
        assert!(!advise_huge_pages(&mut v));
        assert!(!advise_huge_pages::<f64>(&mut []));
    }

    #[test]
    fn advice_keeps_the_contents() {
        // Half written before the advice, half after: every byte reads back as written.
        let n = (HUGE_PAGE_MIN * 3 + 12_345) / 8;
        let mut v = vec![0u64; n];
        for (i, x) in v[..n / 2].iter_mut().enumerate() {
            *x = i as u64 * 0x9e37_79b9;
        }
        let advised = advise_huge_pages(&mut v);
        // Either way the bytes stay.
        if thp_available() {
            assert!(advised);
        }
        for (i, x) in v[n / 2..].iter_mut().enumerate() {
            *x = (i as u64 + 7) ^ 0x5555;
        }
        assert!(v[..n / 2]
            .iter()
            .enumerate()
            .all(|(i, &x)| x == i as u64 * 0x9e37_79b9));
        assert!(v[n / 2..]
            .iter()
            .enumerate()
            .all(|(i, &x)| x == (i as u64 + 7) ^ 0x5555));
    }

    #[test]
    fn an_unaligned_slice_is_advised_inside_its_pages() {
        let mut v = vec![1u8; HUGE_PAGE_MIN + 8192];
        assert_eq!(advise_huge_pages(&mut v[3..]), thp_available());
        assert!(v.iter().all(|&b| b == 1));
    }
}
