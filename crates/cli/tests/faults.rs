//! A disk that fails under a running tier: a read that reports EIO or comes back short,
//! at a chosen request, ends the run with one sentence and exit status 1, and no
//! result is written. The binary the tests build fails the read the environment names
//! (the store's `fault-injection` feature).

mod common;

use common::*;

#[test]
fn a_failed_or_short_read_ends_the_run_without_a_result() {
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("k.sl");
    generate_kron(&graph, 15, 8, &[]);
    let out = dir.path().join("out.npy");
    std::fs::write(&out, b"precious").unwrap();
    // Each case: tier, kernel, the request to fail, how, and what the sentence says.
    let cases = [
        ("direct", "pr", "1:eio", "Input/output error"),
        ("direct", "bfs", "7:eio", "Input/output error"),
        ("direct", "cc", "3:short", "came back short"),
        ("mmap", "pr", "1:eio", "Input/output error"),
        ("mmap", "bfs", "5:eio", "Input/output error"),
        ("mmap", "sssp", "2:short", "came back short"),
    ];
    for (tier, kernel, fault, phrase) in cases {
        let args = [
            "run",
            kernel,
            arg(&graph),
            "--tier",
            tier,
            "--memory",
            "15M",
            "--chunk",
            "4K",
            "--out",
            arg(&out),
        ];
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_swapless"))
            .args(args)
            .env("SWAPLESS_INJECT_READ_FAULT", fault)
            .output()
            .unwrap();
        let stderr = failed_in_one_line(&args, output.clone());
        assert_eq!(output.status.code(), Some(1), "{tier} {kernel} {fault}");
        assert!(stderr.contains(phrase), "{tier} {kernel} {fault}: {stderr}");
        assert_eq!(std::fs::read(&out).unwrap(), b"precious");
    }
    // The same runs without a fault succeed: the failures above are the injected ones.
    for tier in ["direct", "mmap"] {
        swapless_ok(&[
            "run",
            "pr",
            arg(&graph),
            "--tier",
            tier,
            "--memory",
            "15M",
            "--chunk",
            "4K",
        ]);
    }
}
