//! The writer and reader agree, and `check_file` finds every kind of damage.

use std::path::Path;

use swapless_format::ListForm;
use swapless_format::{
    FormatError, GraphCounts, GraphFile, GraphFlags, GraphWriter, SectionKind, check_file,
};

/// Writes a tiny directed graph: 0->1, 0->2, 2->1 (`in` lists mirror them).
fn write_small(path: &Path, out_neighbors: &[u32]) {
    let mut writer = GraphWriter::create(path).unwrap();
    let sections: [(SectionKind, Vec<u8>); 4] = [
        (
            SectionKind::OutOffsets,
            bytemuck::cast_slice(&[0u64, 2, 2, 3]).to_vec(),
        ),
        (
            SectionKind::OutNeighbors,
            bytemuck::cast_slice(out_neighbors).to_vec(),
        ),
        (
            SectionKind::InOffsets,
            bytemuck::cast_slice(&[0u64, 0, 2, 3]).to_vec(),
        ),
        (
            SectionKind::InNeighbors,
            bytemuck::cast_slice(&[0u32, 2, 0]).to_vec(),
        ),
    ];
    for (kind, bytes) in sections {
        let mut section = writer.begin_section(kind, None).unwrap();
        section.write(&bytes).unwrap();
        writer.finish_section(section).unwrap();
    }
    let flags = GraphFlags {
        directed: true,
        weighted: false,
        reordered: false,
        ids: swapless_format::IdKind::Dense,
        compressed_lists: false,
        self_loops: false,
    };
    let counts = GraphCounts {
        vertices: 3,
        arcs: 3,
        self_loops: 0,
    };
    writer.finish(flags, counts).unwrap();
}

#[test]
fn written_sections_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.sl");
    write_small(&path, &[1, 2, 1]);
    let graph = GraphFile::open(&path).unwrap();
    assert_eq!(graph.num_vertices(), 3);
    assert_eq!(&graph.out_neighbors_of(0)[..], &[1, 2]);
    assert_eq!(graph.in_neighbors().unwrap(), &[0, 2, 0]);
    assert_eq!(graph.file_bytes() % 4096, 0);
    check_file(&path).unwrap();
    // nothing but the finished file is left in the directory
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn unsorted_list_is_reported_with_its_vertex() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.sl");
    write_small(&path, &[2, 1, 1]);
    let error = check_file(&path).unwrap_err().to_string();
    assert!(
        error.contains("vertex 0") && error.contains("not sorted"),
        "{error}"
    );
}

#[test]
fn out_of_range_neighbor_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.sl");
    write_small(&path, &[1, 2, 7]);
    let error = check_file(&path).unwrap_err().to_string();
    assert!(
        error.contains("vertex 2") && error.contains("not below the vertex count 3"),
        "{error}"
    );
}

#[test]
fn flipped_byte_fails_its_block_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.sl");
    write_small(&path, &[1, 2, 1]);
    let offset = GraphFile::open(&path)
        .unwrap()
        .header()
        .section(SectionKind::OutNeighbors)
        .unwrap()
        .offset;
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[offset as usize] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    let error = check_file(&path).unwrap_err();
    assert!(
        matches!(&error, FormatError::ChecksumMismatch { section, block: 0, .. } if section == "out_neighbors"),
        "{error}"
    );
}

#[test]
fn truncated_file_is_refused_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.sl");
    write_small(&path, &[1, 2, 1]);
    let bytes = std::fs::read(&path).unwrap();
    for keep in [100usize, 4096 + 10, bytes.len() - 4096] {
        std::fs::write(&path, &bytes[..keep]).unwrap();
        let error = GraphFile::open(&path)
            .err()
            .expect("truncated file must be refused");
        assert!(error.to_string().contains("truncated"), "{keep}: {error}");
    }
}

#[test]
fn writer_refuses_inconsistent_counts_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.sl");
    let mut writer = GraphWriter::create(&path).unwrap();
    let mut section = writer
        .begin_section(SectionKind::OutOffsets, Some(16))
        .unwrap();
    section.write_values(&[0u64, 5]).unwrap();
    writer.finish_section(section).unwrap();
    let mut section = writer
        .begin_section(SectionKind::OutNeighbors, None)
        .unwrap();
    section.write_values(&[0u32]).unwrap();
    writer.finish_section(section).unwrap();
    let counts = GraphCounts {
        vertices: 1,
        arcs: 5,
        self_loops: 0,
    };
    let error = writer.finish(GraphFlags::default(), counts).unwrap_err();
    assert!(error.to_string().contains("out_neighbors"), "{error}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn lists_compress_and_come_back_plain_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("g.sl");
    write_small(&plain, &[1, 2, 1]);
    let compressed = dir.path().join("g-compressed.sl");
    let graph = GraphFile::open(&plain).unwrap();
    swapless_format::transcode(&graph, &compressed, ListForm::Compressed, &mut |_| true).unwrap();
    let packed = GraphFile::open(&compressed).unwrap();
    assert_eq!(packed.header().version, swapless_format::FORMAT_VERSION);
    assert!(packed.lists_compressed());
    check_file(&compressed).unwrap();
    for v in 0..3 {
        assert_eq!(packed.out_list(v).unwrap(), graph.out_list(v).unwrap());
        assert_eq!(packed.in_list(v).unwrap(), graph.in_list(v).unwrap());
    }
    let back = dir.path().join("g2.sl");
    swapless_format::transcode(&packed, &back, ListForm::Plain, &mut |_| true).unwrap();
    assert_eq!(GraphFile::open(&back).unwrap().header().version, 2);
    check_file(&back).unwrap();
    // The same sections, byte for byte, as the file it came from (the checksums in
    // another order, the sections' own).
    let original = GraphFile::open(&plain).unwrap();
    let again = GraphFile::open(&back).unwrap();
    for kind in swapless_format::SectionKind::ALL {
        if kind == SectionKind::Checksums {
            continue;
        }
        assert_eq!(
            original.section_bytes(kind),
            again.section_bytes(kind),
            "{kind:?}"
        );
    }
}

#[test]
fn a_compressed_list_that_lies_is_caught_by_check() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("g.sl");
    // Vertex 2's list is out of range: compressed as it is, check must still see it.
    write_small(&plain, &[1, 2, 7]);
    let compressed = dir.path().join("g-compressed.sl");
    let graph = GraphFile::open(&plain).unwrap();
    swapless_format::transcode(&graph, &compressed, ListForm::Compressed, &mut |_| true).unwrap();
    let error = check_file(&compressed).unwrap_err().to_string();
    assert!(
        error.contains("vertex 2") && error.contains("not below"),
        "{error}"
    );
}

/// Writes a weighted directed graph whose out-lists are `lists` (in-lists their transpose).
fn write_weighted(path: &Path, lists: &[Vec<u32>]) {
    let n = lists.len();
    let mut incoming = vec![Vec::new(); n];
    for (v, list) in lists.iter().enumerate() {
        for &u in list {
            incoming[u as usize].push(v as u32);
        }
    }
    let csr = |lists: &[Vec<u32>]| {
        let mut offsets = vec![0u64];
        for list in lists {
            offsets.push(offsets.last().unwrap() + list.len() as u64);
        }
        let ids: Vec<u32> = lists.iter().flatten().copied().collect();
        // The weight of an arc is the same read from either end.
        let weights: Vec<f32> = lists
            .iter()
            .enumerate()
            .flat_map(|(v, list)| list.iter().map(move |&u| (v as u32 + u) as f32 * 0.5))
            .collect();
        (offsets, ids, weights)
    };
    let (out_offsets, out_ids, out_weights) = csr(lists);
    let (in_offsets, in_ids, in_weights) = csr(&incoming);
    let mut writer = GraphWriter::create(path).unwrap();
    let sections: [(SectionKind, Vec<u8>); 6] = [
        (
            SectionKind::OutOffsets,
            bytemuck::cast_slice(&out_offsets).to_vec(),
        ),
        (
            SectionKind::OutNeighbors,
            bytemuck::cast_slice(&out_ids).to_vec(),
        ),
        (
            SectionKind::OutWeights,
            bytemuck::cast_slice(&out_weights).to_vec(),
        ),
        (
            SectionKind::InOffsets,
            bytemuck::cast_slice(&in_offsets).to_vec(),
        ),
        (
            SectionKind::InNeighbors,
            bytemuck::cast_slice(&in_ids).to_vec(),
        ),
        (
            SectionKind::InWeights,
            bytemuck::cast_slice(&in_weights).to_vec(),
        ),
    ];
    for (kind, bytes) in sections {
        let mut section = writer.begin_section(kind, None).unwrap();
        section.write(&bytes).unwrap();
        writer.finish_section(section).unwrap();
    }
    // Lists that hold their own vertex are self-loops, which the header counts.
    let self_loops = (0..n)
        .filter(|&v| lists[v].binary_search(&(v as u32)).is_ok())
        .count() as u64;
    let flags = GraphFlags {
        directed: true,
        weighted: true,
        self_loops: self_loops > 0,
        ..GraphFlags::default()
    };
    let counts = GraphCounts {
        vertices: n as u64,
        arcs: out_ids.len() as u64,
        self_loops,
    };
    writer.finish(flags, counts).unwrap();
}

#[test]
fn every_list_in_order_reads_the_same_from_either_form() {
    // Lists long and short, past several 1 MiB pieces of the compressed section.
    let n = 30_000u32;
    let lists: Vec<Vec<u32>> = (0..n)
        .map(|v| match v % 1000 {
            0 => (0..n).step_by(2).collect(),
            _ => (0..v % 37)
                .map(|i| (v * 31 + i * 997) % n)
                .collect::<std::collections::BTreeSet<u32>>()
                .into_iter()
                .collect(),
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("g.sl");
    write_weighted(&plain, &lists);
    let compressed = dir.path().join("g-compressed.sl");
    let graph = GraphFile::open(&plain).unwrap();
    swapless_format::transcode(&graph, &compressed, ListForm::Compressed, &mut |_| true).unwrap();
    let packed = GraphFile::open(&compressed).unwrap();
    check_file(&compressed).unwrap();
    for incoming in [false, true] {
        for weights in [false, true] {
            let collect = |graph: &GraphFile| {
                let mut seen = Vec::new();
                let mut scan = graph.scan_lists(incoming).unwrap();
                let (mut ids, mut list_weights) = (Vec::new(), Vec::new());
                while let Some(v) = scan
                    .next_list(graph, &mut ids, weights.then_some(&mut list_weights))
                    .unwrap()
                {
                    if !ids.is_empty() {
                        seen.push((v, ids.clone(), weights.then(|| list_weights.clone())));
                    }
                }
                seen
            };
            let expected = collect(&graph);
            assert!(expected.len() > 20_000);
            assert_eq!(
                collect(&packed),
                expected,
                "incoming {incoming}, weights {weights}"
            );
        }
    }
}
