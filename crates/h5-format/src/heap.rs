//! Heaps: local heaps (`HEAP`), global heap collections (`GCOL`) and fractal heaps (`FRHP`,
//! `FHDB`, `FHIB`).

pub mod fractal;
pub mod global;
pub mod local;
