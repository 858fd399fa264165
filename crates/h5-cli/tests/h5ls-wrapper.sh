#!/bin/sh
# Run `h5 ls` with h5ls's arguments (the WRAPPER for shared/corpus/tools/run_index.py).
# H5_BIN names the built `h5` binary; without it, the debug build next to this script is used.
here=$(dirname "$0")
bin=${H5_BIN:-$here/../../../target/debug/h5}
exec "$bin" ls "$@"
