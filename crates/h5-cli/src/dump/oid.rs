//! The object identifiers `h5dump -i` prints (`h5tools_dump_oid`).
//!
//! h5dump 1.10.8 prints `OBJECTID { N }` with `"%d"` of the `hid_t` it opened the object
//! with: the low 32 bits of the identifier, which for the library's `H5I_register` are the
//! per-type serial number (`H5I_MAKE(type, type_ptr->nextid++)`, starting at 0, never
//! reused). The number an object gets is therefore how many identifiers of its type the run
//! registered before, and every call that registers one has to be counted, printed or not:
//!
//! - `init_objs` (`h5trav_visit` → `H5Lvisit_by_name2` → `H5G_visit`) registers one group
//!   for the start of the walk, and `find_objs_cb` opens each dataset the first time it is
//!   reached (`H5Dopen2`);
//! - every group printed is opened (`H5Gopen2`), and printing its links (`H5Literate2` →
//!   `H5G_iterate`) registers one more group for the callbacks, even for an empty group;
//! - every dataset `dump_all_cb` meets is opened, also when only its `HARDLINK` is printed;
//!   each anonymous committed datatype printed in the root group opens the dataset that
//!   uses it;
//! - every attribute printed is opened (`H5Aopen`);
//! - following an external link (`dump_extlink`: `H5Oopen` → `H5G__traverse_ud`) registers
//!   a group for the callback of each external link on the way and, when the target opens,
//!   the object each one reaches (`H5L_extern_traverse`) and the target for `H5Oopen`; a file
//!   not seen before is walked (`init_objs` again), then `handle_groups` or `handle_datasets`
//!   open the target through the link once more, and that identifier is printed;
//! - `-N` (`handle_paths`) opens the root group, walks the file and opens every object it
//!   visits to look at its attributes (`H5Aiterate_by_name`);
//! - each non-null reference printed dereferences its target (`H5Rdereference2` in
//!   `h5tools_str_sprint`), and once more where a dataset's references are followed; the
//!   first object reference fills the reference path table with one more walk
//!   (`lookup_ref_path` → `init_ref_path_table`).
//!
//! Named datatypes print no identifier, so the datatype counter (which every type query of
//! the library also draws from) is not kept.

use std::cell::RefCell;
use std::rc::Rc;

use super::model::ObjKind;

/// The identifier counters of one h5dump run, shared by the files an external link reaches.
#[derive(Clone, Debug, Default)]
pub struct Ids(Rc<RefCell<Counters>>);

#[derive(Debug, Default)]
struct Counters {
    group: u64,
    dataset: u64,
    attribute: u64,
    ref_paths: bool,
}

impl Ids {
    /// Register an identifier for an object of kind `kind`: its number (none for named
    /// datatypes, whose counter is not kept).
    pub fn open(&self, kind: ObjKind) -> Option<u64> {
        let mut c = self.0.borrow_mut();
        let n = match kind {
            ObjKind::Group => &mut c.group,
            ObjKind::Dataset => &mut c.dataset,
            ObjKind::NamedDatatype => return None,
        };
        *n += 1;
        Some(*n - 1)
    }

    /// Register an identifier for an attribute: its number.
    pub fn open_attribute(&self) -> u64 {
        let mut c = self.0.borrow_mut();
        c.attribute += 1;
        c.attribute - 1
    }

    /// `lookup_ref_path`: the first call builds the reference path table with a walk of the
    /// file (one group identifier).
    pub fn ref_path_lookup(&self) {
        let first = !self.0.borrow().ref_paths;
        if first {
            self.0.borrow_mut().ref_paths = true;
            self.open(ObjKind::Group);
        }
    }
}
