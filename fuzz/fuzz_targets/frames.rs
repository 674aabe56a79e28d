#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| chwire_fuzz::frames(data));
