//! B-trees: version 1 (`TREE`, groups and chunks) and version 2 (`BTHD`/`BTIN`/`BTLF`).

pub mod v1;
pub mod v2;
