use super::*;

/// A small linear congruential generator: the same graphs on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// A graph as CSR: offsets into the concatenated lists.
type Csr = (Vec<u64>, Vec<u32>);

/// CSR offsets and sorted, unique lists of `vertices` lists from directed `edges`.
fn csr(vertices: usize, edges: &[(u32, u32)]) -> Csr {
    let mut lists = vec![Vec::new(); vertices];
    for &(from, to) in edges {
        lists[from as usize].push(to);
    }
    let mut offsets = vec![0u64];
    let mut neighbors = Vec::new();
    for mut list in lists {
        list.sort_unstable();
        list.dedup();
        neighbors.extend_from_slice(&list);
        offsets.push(neighbors.len() as u64);
    }
    (offsets, neighbors)
}

fn both_ways(edges: impl Iterator<Item = (u32, u32)>) -> Vec<(u32, u32)> {
    edges
        .filter(|(from, to)| from != to)
        .flat_map(|(from, to)| [(from, to), (to, from)])
        .collect()
}

/// Graph500's RMAT (A=0.57, B=C=0.19): a few hubs with lists longer than a page.
fn kron(scale: u32, degree: usize) -> Csr {
    let mut random = Lcg(7);
    let edges = (0..(degree << scale)).map(|_| {
        let (mut from, mut to) = (0u32, 0u32);
        for _ in 0..scale {
            let draw = random.next() % 100;
            let (down, right) = match draw {
                0..57 => (0, 0),
                57..76 => (0, 1),
                76..95 => (1, 0),
                _ => (1, 1),
            };
            from = from << 1 | down;
            to = to << 1 | right;
        }
        (from, to)
    });
    csr(1 << scale, &both_ways(edges))
}

fn urand(scale: u32, degree: usize) -> Csr {
    let mut random = Lcg(11);
    let vertices = 1u64 << scale;
    let edges = (0..(degree << scale)).map(|_| {
        (
            (random.next() % vertices) as u32,
            (random.next() % vertices) as u32,
        )
    });
    csr(1 << scale, &both_ways(edges))
}

fn grid(side: u32) -> Csr {
    let edges = (0..side * side).flat_map(|v| {
        let right = (v % side + 1 < side).then_some((v, v + 1));
        let down = (v / side + 1 < side).then_some((v, v + side));
        right.into_iter().chain(down)
    });
    csr((side * side) as usize, &both_ways(edges))
}

/// Empty lists around two lists longer than a page (one dense, one of wide gaps), and
/// lists whose ids sit at the top of the u32 range.
fn edge_cases() -> Csr {
    let mut random = Lcg(3);
    let mut edges: Vec<(u32, u32)> = (0..20_000).map(|to| (2, to)).collect();
    edges.extend((0..5_000).map(|_| (4, random.next() as u32)));
    edges.extend([(5, u32::MAX), (5, 0), (6, u32::MAX - 1), (6, u32::MAX)]);
    edges.extend((0..3_000).map(|index| (7, u32::MAX - 3 * index)));
    edges.push((9, 1));
    csr(12, &edges)
}

fn graphs() -> Vec<(&'static str, Csr)> {
    vec![
        ("kron", kron(12, 16)),
        ("urand", urand(12, 16)),
        ("grid", grid(64)),
        ("edge cases", edge_cases()),
    ]
}

const POLICIES: [PagePolicy; 2] = [PagePolicy::KeepShortListsWhole, PagePolicy::FillPages];

#[test]
fn every_codec_round_trips_every_list() {
    for (graph, (offsets, neighbors)) in graphs() {
        for (codec, policy) in candidates()
            .iter()
            .flat_map(|codec| POLICIES.map(|policy| (codec, policy)))
        {
            let encoded = encode_lists(codec.as_ref(), &offsets, &neighbors, policy);
            assert_eq!(encoded.bytes.len() % PAGE_BYTES, 0);
            let mut list = Vec::new();
            for v in 0..offsets.len() - 1 {
                list.clear();
                decode_list(codec.as_ref(), &encoded, v, &mut list).unwrap();
                let expected = &neighbors[offsets[v] as usize..offsets[v + 1] as usize];
                assert_eq!(
                    list,
                    expected,
                    "{graph}, {}, {policy:?}, vertex {v}",
                    codec.name()
                );
            }
        }
    }
}

#[test]
fn every_page_decodes_alone_and_short_lists_stay_on_one_page_when_kept_whole() {
    for (graph, (offsets, neighbors)) in graphs() {
        for (codec, policy) in candidates()
            .iter()
            .flat_map(|codec| POLICIES.map(|policy| (codec, policy)))
        {
            let encoded = encode_lists(codec.as_ref(), &offsets, &neighbors, policy);
            let mut rebuilt = vec![Vec::new(); offsets.len() - 1];
            let mut pages_of = vec![0usize; offsets.len() - 1];
            for (page, bytes) in encoded.bytes.chunks(PAGE_BYTES).enumerate() {
                // A copy of this page alone: nothing before or after it can be read.
                let alone = bytes.to_vec();
                let (mut ids, mut chunks) = (Vec::new(), Vec::new());
                decode_page(
                    codec.as_ref(),
                    &encoded.offsets,
                    page,
                    &alone,
                    &mut ids,
                    &mut chunks,
                )
                .unwrap();
                for chunk in chunks {
                    rebuilt[chunk.vertex as usize].extend_from_slice(&ids[chunk.ids]);
                    pages_of[chunk.vertex as usize] += 1;
                }
            }
            for v in 0..offsets.len() - 1 {
                let expected = &neighbors[offsets[v] as usize..offsets[v + 1] as usize];
                assert_eq!(
                    rebuilt[v],
                    expected,
                    "{graph}, {}, {policy:?}, vertex {v}",
                    codec.name()
                );
                if policy == PagePolicy::KeepShortListsWhole
                    && !expected.is_empty()
                    && chunk_bytes(codec.as_ref(), v as u32, expected, false) <= PAGE_BYTES
                {
                    assert_eq!(
                        pages_of[v],
                        1,
                        "{graph}, {}, {policy:?}, vertex {v}",
                        codec.name()
                    );
                }
            }
        }
    }
}

#[test]
fn long_lists_span_pages_and_empty_lists_take_no_bytes() {
    let (offsets, neighbors) = edge_cases();
    for codec in candidates() {
        let encoded = encode_lists(
            codec.as_ref(),
            &offsets,
            &neighbors,
            PagePolicy::KeepShortListsWhole,
        );
        let pages = |v: usize| {
            encoded.offsets[v + 1].div_ceil(PAGE_BYTES as u64)
                - encoded.offsets[v] / PAGE_BYTES as u64
        };
        // Vertex 4: 5,000 ids of gaps near 2^19, about three bytes each in every codec.
        assert!(pages(4) > 2, "{}", codec.name());
        for v in [0, 1, 3, 8, 10, 11] {
            assert_eq!(
                encoded.offsets[v],
                encoded.offsets[v + 1],
                "{}",
                codec.name()
            );
        }
    }
}

#[test]
fn a_page_cut_short_is_an_error_not_a_panic() {
    let (offsets, neighbors) = kron(10, 16);
    for codec in candidates() {
        let mut encoded = encode_lists(
            codec.as_ref(),
            &offsets,
            &neighbors,
            PagePolicy::KeepShortListsWhole,
        );
        let hub = (0..offsets.len() - 1)
            .max_by_key(|&v| offsets[v + 1] - offsets[v])
            .unwrap();
        encoded.bytes.truncate(encoded.offsets[hub] as usize + 3);
        let result = decode_list(codec.as_ref(), &encoded, hub, &mut Vec::new());
        assert!(
            matches!(result, Err(ListCodecError::Truncated { .. })),
            "{}: {result:?}",
            codec.name()
        );
    }
}

#[test]
fn filling_pages_pads_less_than_keeping_short_lists_whole() {
    let (offsets, neighbors) = kron(12, 16);
    for codec in candidates() {
        let whole = encode_lists(
            codec.as_ref(),
            &offsets,
            &neighbors,
            PagePolicy::KeepShortListsWhole,
        );
        let filled = encode_lists(codec.as_ref(), &offsets, &neighbors, PagePolicy::FillPages);
        assert!(
            filled.padding_bytes < whole.padding_bytes,
            "{}",
            codec.name()
        );
    }
}

/// Gaps minus one, each `gap`, packed at `width` bits as a packed tail holds them.
fn packed_tail_bytes(width: u8, gaps: usize, gap: u32) -> Vec<u8> {
    let mut bytes = vec![width];
    let (mut bits, mut filled) = (0u64, 0u32);
    for _ in 0..gaps {
        bits |= u64::from(gap) << filled;
        filled += u32::from(width);
        while filled >= 8 {
            bytes.push(bits as u8);
            bits >>= 8;
            filled -= 8;
        }
    }
    bytes.push(bits as u8);
    bytes.resize(bytes.len() + 16, 0);
    bytes
}

#[test]
fn gaps_that_add_up_past_u32_max_are_refused_in_every_part_of_a_chunk() {
    // A packed tail: four gaps of 2^29 from 0 rise; from 0xf000_0000 they wrap.
    let tail = packed_tail_bytes(30, 4, 1 << 29);
    let mut out = [0u32; 4];
    assert!(packed_tail::decode_tail(0, &tail, &mut out).is_some());
    assert!(out.windows(2).all(|pair| pair[0] < pair[1]));
    assert_eq!(packed_tail::decode_tail(0xf000_0000, &tail, &mut out), None);
    // A block of 128 gaps of 2^25 + 1: 2^32 and more in all, from any start.
    use bitpacking::BitPacker;
    let packer = bitpacking::BitPacker4x::new();
    let deltas = [1u32 << 25; 128];
    let mut block = vec![26u8];
    block.resize(1 + bitpacking::BitPacker4x::compressed_block_size(26), 0);
    packer.compress(&deltas, &mut block[1..], 26);
    block.resize(block.len() + 64, 0);
    let codec = BitPackedBlocks {
        tail: TailCoding::PackedFrom(4),
    };
    let mut out = vec![0u32; 128];
    assert_eq!(codec.decode_body(0, &block, &mut out), None);
    // The same block of half those gaps rises.
    let deltas = [1u32 << 24; 128];
    packer.compress(&deltas, &mut block[1..], 26);
    assert!(codec.decode_body(0, &block, &mut out).is_some());
    assert!(out.windows(2).all(|pair| pair[0] < pair[1]));
    // A Stream VByte tail: one gap of 0x20 from 0xffff_fff0.
    let mut gaps = Vec::new();
    stream_vbyte::encode_gaps(&[0, 0x20], &mut gaps);
    gaps.resize(gaps.len() + 16, 0);
    let mut out = [0u32; 1];
    assert!(stream_vbyte::decode_gaps(0, &gaps, &mut out, false).is_some());
    for ssse3 in [false, true] {
        let decoded = stream_vbyte::decode_gaps(0xffff_fff0, &gaps, &mut out, ssse3);
        assert_eq!(decoded, None, "ssse3 {ssse3}");
    }
}
