//! Bad input gets one clear sentence and a non-zero exit, never a panic, never a
//! partial output, and never damage to an existing output file.

mod common;

use std::path::Path;

use common::*;

/// Builds `input` over an existing output and checks the failure left it untouched.
fn build_fails(input: &Path, extra: &[&str]) -> String {
    let output = input.with_file_name("existing.sl");
    std::fs::write(&output, b"precious").unwrap();
    let mut args = vec!["build", arg(input), "-o", arg(&output)];
    args.extend_from_slice(extra);
    let stderr = swapless_fails(&args);
    assert_eq!(
        std::fs::read(&output).unwrap(),
        b"precious",
        "the old output was touched"
    );
    let leftovers: Vec<_> = std::fs::read_dir(input.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    stderr
}

fn text_input(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    write_input(&path, text.as_bytes());
    path
}

#[test]
fn malformed_line_names_file_line_and_text() {
    let dir = tempfile::tempdir().unwrap();
    let input = text_input(dir.path(), "g.el", "0 1\n1 2\n2 x3\n");
    let stderr = build_fails(&input, &[]);
    assert!(stderr.contains("g.el:3:"), "{stderr}");
    assert!(stderr.contains("`2 x3`"), "{stderr}");
    assert!(stderr.contains("`x3` is not a vertex id"), "{stderr}");
}

#[test]
fn malformed_line_inside_a_compressed_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = text_input(dir.path(), "g.el.gz", "0 1\n1 2 3 4\n");
    let stderr = build_fails(&input, &[]);
    assert!(
        stderr.contains("g.el.gz:2:") && stderr.contains("found 4"),
        "{stderr}"
    );
}

#[test]
fn empty_and_comment_only_files() {
    let dir = tempfile::tempdir().unwrap();
    let empty = text_input(dir.path(), "empty.el", "");
    assert!(build_fails(&empty, &[]).contains("the file is empty"));
    let comments = text_input(dir.path(), "comments.el", "# nothing here\n\n% at all\n");
    assert!(build_fails(&comments, &[]).contains("no edges"));
}

#[test]
fn weight_column_in_some_lines_only() {
    let dir = tempfile::tempdir().unwrap();
    let input = text_input(dir.path(), "g.el", "0 1 2.5\n1 2 1\n2 3\n");
    let stderr = build_fails(&input, &["--weighted"]);
    assert!(
        stderr.contains("g.el:3:") && stderr.contains("weight on every line or on none"),
        "{stderr}"
    );
    let input = text_input(dir.path(), "h.el", "0 1\n1 2 1\n");
    let stderr = build_fails(&input, &[]);
    assert!(stderr.contains("h.el:2:"), "{stderr}");
    let input = text_input(dir.path(), "u.el", "0 1\n1 2\n");
    assert!(build_fails(&input, &["--weighted"]).contains("needs a third column"));
    let input = text_input(dir.path(), "n.el", "0 1 nan\n");
    assert!(build_fails(&input, &["--weighted"]).contains("not a finite number"));
}

#[test]
fn ids_that_do_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let input = text_input(dir.path(), "g.el", "0 1\n4294967295 2\n");
    let stderr = build_fails(&input, &[]);
    assert!(
        stderr.contains("g.el:2:") && stderr.contains("does not fit in 32 bits"),
        "{stderr}"
    );
    let input = text_input(dir.path(), "n.el", "0 -1\n");
    assert!(build_fails(&input, &[]).contains("not a vertex id"));
}

#[test]
fn missing_input() {
    let dir = tempfile::tempdir().unwrap();
    let stderr = build_fails(&dir.path().join("nowhere.el"), &[]);
    assert!(
        stderr.contains("nowhere.el") && stderr.contains("No such file"),
        "{stderr}"
    );
}

#[test]
fn bad_matrix_market_files() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
            "dense",
        ),
        (
            "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 2 1 0\n",
            "complex",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 2\n2 1\n",
            "declares 3 entries but the file has 2",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 3\n",
            "outside 1..=2",
        ),
        (
            "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n0 1\n",
            "outside 1..=2",
        ),
    ];
    for (index, (text, expected)) in cases.iter().enumerate() {
        let input = text_input(dir.path(), &format!("m{index}.mtx"), text);
        let stderr = build_fails(&input, &[]);
        assert!(stderr.contains(expected), "{expected}: {stderr}");
    }
    let input = text_input(
        dir.path(),
        "p.mtx",
        "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n",
    );
    assert!(build_fails(&input, &["--weighted"]).contains("pattern"));
}

fn gap_bytes(vertices: i64, offsets: &[i64], neighbors: &[i32]) -> Vec<u8> {
    let mut bytes = vec![0u8];
    bytes.extend_from_slice(&(neighbors.len() as i64).to_le_bytes());
    bytes.extend_from_slice(&vertices.to_le_bytes());
    offsets
        .iter()
        .for_each(|o| bytes.extend_from_slice(&o.to_le_bytes()));
    neighbors
        .iter()
        .for_each(|n| bytes.extend_from_slice(&n.to_le_bytes()));
    bytes
}

#[test]
fn truncated_and_corrupt_gap_files() {
    let dir = tempfile::tempdir().unwrap();
    let good = gap_bytes(3, &[0, 1, 2, 2], &[1, 0]);
    let truncated = dir.path().join("t.sg");
    std::fs::write(&truncated, &good[..good.len() - 3]).unwrap();
    assert!(build_fails(&truncated, &[]).contains("truncated"));
    let truncated_gz = dir.path().join("t2.sg.gz");
    write_input(&truncated_gz, &good[..good.len() - 3]);
    assert!(build_fails(&truncated_gz, &[]).contains("truncated"));
    let bad_offsets = dir.path().join("o.sg");
    std::fs::write(&bad_offsets, gap_bytes(3, &[0, 2, 1, 2], &[1, 0])).unwrap();
    assert!(build_fails(&bad_offsets, &[]).contains("decrease at vertex 1"));
    let bad_neighbor = dir.path().join("n.sg");
    std::fs::write(&bad_neighbor, gap_bytes(3, &[0, 1, 2, 2], &[1, 7])).unwrap();
    assert!(build_fails(&bad_neighbor, &[]).contains("vertex 1 has neighbor 7"));
    let not_gap = dir.path().join("x.sg");
    std::fs::write(&not_gap, b"hello, this is text and not a graph at all").unwrap();
    assert!(build_fails(&not_gap, &[]).contains("not a GAP serialized graph"));
    let unweighted = dir.path().join("u.sg");
    std::fs::write(&unweighted, &good).unwrap();
    assert!(build_fails(&unweighted, &["--weighted"]).contains(".wsg"));
}

#[test]
fn truncated_and_corrupt_sl_files() {
    let dir = tempfile::tempdir().unwrap();
    let input = text_input(
        dir.path(),
        "g.el",
        &(0..5000)
            .map(|i| format!("{} {}\n", i, (i * 7 + 1) % 5000))
            .collect::<String>(),
    );
    let graph = dir.path().join("g.sl");
    swapless_ok(&["build", arg(&input), "-o", arg(&graph)]);
    let bytes = std::fs::read(&graph).unwrap();

    let truncated = dir.path().join("t.sl");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    for command in ["info", "check"] {
        let stderr = swapless_fails(&[command, arg(&truncated)]);
        assert!(stderr.contains("truncated"), "{stderr}");
    }

    let corrupt = dir.path().join("c.sl");
    let mut damaged = bytes.clone();
    damaged[4096 * 12 + 100] ^= 0xff;
    std::fs::write(&corrupt, &damaged).unwrap();
    let stderr = swapless_fails(&["check", arg(&corrupt)]);
    assert!(
        stderr.contains("fails its checksum")
            // The 4 KiB page that holds the byte.
            && stderr.contains("block 1 of section out_neighbors (bytes 49152..53248"),
        "{stderr}"
    );

    let not_sl = dir.path().join("n.sl");
    std::fs::write(&not_sl, b"0 1\n1 2\n").unwrap();
    assert!(swapless_fails(&["info", arg(&not_sl)]).contains("not a swapless .sl graph file"));
    // A .sl file is a build input too; a damaged one is refused, never copied.
    let again = dir.path().join("again.sl");
    let stderr = swapless_fails(&["build", arg(&corrupt), "-o", arg(&again)]);
    assert!(stderr.contains("fails its checksum"), "{stderr}");
    assert!(!again.exists());
    let stderr = swapless_fails(&["build", arg(&truncated), "-o", arg(&again)]);
    assert!(stderr.contains("truncated"), "{stderr}");
    assert!(!again.exists());
}

#[test]
fn bad_options() {
    let dir = tempfile::tempdir().unwrap();
    let input = text_input(dir.path(), "g.el", "0 1\n");
    let output = dir.path().join("g.sl");
    assert!(
        swapless_fails(&["build", arg(&input), "-o", arg(&output), "--memory", "lots"])
            .contains("not a size")
    );
    assert!(
        swapless_fails(&["build", arg(&input), "-o", arg(&output), "--memory", "1M"])
            .contains("too small")
    );
    assert!(
        swapless_fails(&["build", arg(&input), "-o", arg(&dir.path().join("g.txt"))])
            .contains("should end in .sl")
    );
    assert!(
        swapless_fails(&["generate", "kron", "--scale", "40", "-o", arg(&output)])
            .contains("--scale")
    );
    assert!(!output.exists());
}
