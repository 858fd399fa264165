#!/bin/sh
# Run `h5 dump --compat=2.0` with h5dump's arguments (the WRAPPER for
# shared/corpus/tools/run_index.py on the corpus of the HDF5 2.x h5dump).
# H5_BIN names the built `h5` binary; without it, the debug build next to this script is used.
here=$(dirname "$0")
bin=${H5_BIN:-$here/../../../target/debug/h5}
exec "$bin" dump --compat=2.0 "$@"
