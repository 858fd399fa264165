//! Fuzz target `filter_blosc2`: see `h5_fuzz::filters`. Under `cargo fuzz` this is a
//! libFuzzer target; otherwise it runs the target over the files (or directories) given as
//! arguments, to reproduce a crash: `cargo run -p h5-fuzz --bin filter_blosc2 -- CRASH_FILE`.
#![cfg_attr(fuzzing, no_main)]

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = h5_fuzz::filters::blosc2::run(&mut arbitrary::Unstructured::new(data));
});

#[cfg(not(fuzzing))]
fn main() {
    h5_fuzz::reproduce(h5_fuzz::filters::blosc2::run);
}
