//! The netCDF-4 writer.
