#![no_main]
use chwire_fuzz as fuzz_lib;
// Each binary uses one target of the module.
#[allow(dead_code)]
#[path = "../src/formats.rs"]
mod formats;
libfuzzer_sys::fuzz_target!(|data: &[u8]| formats::text_input(data));
