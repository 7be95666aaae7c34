#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| swapless_fuzz_targets::sl_forged_compressed(data));
