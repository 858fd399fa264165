//! Unit tests of the walk.
