//! The compressed list format's tests: round trips, pages decoding alone, heads, parts,
//! and damage refused rather than read.

use super::*;

/// Encodes `lists` into a stream and its positions.
fn encode(lists: &[Vec<u32>], weighted: bool) -> (Vec<u8>, Vec<u64>) {
    let mut stream = Vec::new();
    let mut positions = Vec::new();
    let mut encoder = ListEncoder::new(weighted);
    let weights_of = |ids: &[u32]| ids.iter().map(|&id| id as f32 * 0.5).collect::<Vec<f32>>();
    for ids in lists {
        let weights = weights_of(ids);
        encoder
            .push(
                ids,
                weighted.then_some(&weights[..]),
                &mut |page| {
                    stream.extend_from_slice(page);
                    Ok(())
                },
                &mut |position| {
                    positions.push(position);
                    Ok(())
                },
            )
            .unwrap();
    }
    let length = encoder
        .finish(
            &mut |page| {
                stream.extend_from_slice(page);
                Ok(())
            },
            &mut |position| {
                positions.push(position);
                Ok(())
            },
        )
        .unwrap();
    assert_eq!(length, stream.len() as u64);
    (stream, positions)
}

fn sample_lists() -> Vec<Vec<u32>> {
    let mut lists: Vec<Vec<u32>> = vec![
        vec![],
        vec![1, 2, 3],
        vec![],
        (0..5000).map(|i| i * 3).collect(),
        vec![0],
        vec![u32::MAX - 1, u32::MAX],
        (0..700_000).collect(),
        vec![],
    ];
    for vertex in 0..3000u32 {
        lists.push(
            (0..(vertex % 40))
                .map(|i| i * 7919 % 100_000 + i * 100_000)
                .collect(),
        );
    }
    lists.push(vec![]);
    lists
}

#[test]
fn every_list_round_trips_with_and_without_weights() {
    let lists = sample_lists();
    for weighted in [false, true] {
        let (stream, positions) = encode(&lists, weighted);
        assert_eq!(positions.len(), lists.len() + 1);
        assert!(positions.windows(2).all(|pair| pair[0] <= pair[1]));
        assert_eq!(*positions.last().unwrap(), stream.len() as u64);
        assert_eq!(stream.len() % PAGE, 0);
        for (vertex, list) in lists.iter().enumerate() {
            let (mut ids, mut weights) = (Vec::new(), Vec::new());
            decode_list(
                GapCoding::NEWEST,
                &stream,
                positions[vertex] as usize,
                vertex as u32,
                list.len() as u64,
                u64::MAX,
                &mut ids,
                weighted.then_some(&mut weights),
            )
            .unwrap();
            assert_eq!(&ids, list, "vertex {vertex}");
            if weighted {
                let expected: Vec<f32> = list.iter().map(|&id| id as f32 * 0.5).collect();
                assert_eq!(weights, expected, "vertex {vertex}");
            }
            if list.is_empty() {
                assert_eq!(positions[vertex], positions[vertex + 1]);
            }
        }
    }
}

#[test]
fn lists_decode_over_a_reused_buffer_one_after_another() {
    let lists = sample_lists();
    let (stream, positions) = encode(&lists, false);
    // A buffer left longer than the lists and full of other ids, as a block before.
    let mut ids = vec![u32::MAX; 1 << 20];
    let longest = ids.len();
    for (heads, at) in [(u64::MAX, 0), (3, 7), (u64::MAX, longest - 10)] {
        let mut filled = at;
        let mut ends = vec![at];
        for (vertex, list) in lists.iter().enumerate() {
            filled += decode_list_at(
                GapCoding::NEWEST,
                &stream,
                positions[vertex] as usize,
                vertex as u32,
                list.len() as u64,
                heads,
                &mut ids,
                filled,
                None,
            )
            .unwrap();
            ends.push(filled);
        }
        assert!(ids.len() >= longest.max(filled), "the buffer never shrinks");
        for (vertex, list) in lists.iter().enumerate() {
            let wanted = &list[..list.len().min(heads as usize)];
            assert_eq!(
                &ids[ends[vertex]..ends[vertex + 1]],
                wanted,
                "vertex {vertex}"
            );
        }
    }
}

#[test]
fn a_list_decodes_from_its_own_pages_alone() {
    let lists = sample_lists();
    let (stream, positions) = encode(&lists, false);
    for (vertex, list) in lists
        .iter()
        .enumerate()
        .filter(|(_, list)| !list.is_empty())
    {
        let first_page = positions[vertex] as usize / PAGE * PAGE;
        let last_page = (positions[vertex + 1] as usize).div_ceil(PAGE) * PAGE;
        let own = stream[first_page..last_page.min(stream.len())].to_vec();
        let mut ids = Vec::new();
        decode_list(
            GapCoding::NEWEST,
            &own,
            positions[vertex] as usize - first_page,
            vertex as u32,
            list.len() as u64,
            u64::MAX,
            &mut ids,
            None,
        )
        .unwrap();
        assert_eq!(&ids, list);
    }
}

#[test]
fn a_head_decodes_from_the_first_pages_of_a_long_list() {
    let lists = sample_lists();
    for weighted in [false, true] {
        let (stream, positions) = encode(&lists, weighted);
        let start = positions[6] as usize;
        let pages = &stream[start / PAGE * PAGE..(start / PAGE + 2) * PAGE];
        let (mut ids, mut weights) = (Vec::new(), Vec::new());
        decode_list(
            GapCoding::NEWEST,
            pages,
            start % PAGE,
            6,
            lists[6].len() as u64,
            2,
            &mut ids,
            weighted.then_some(&mut weights),
        )
        .unwrap();
        assert_eq!(ids, vec![0, 1]);
        assert_eq!(weights.len(), if weighted { 2 } else { 0 });
    }
}

#[test]
fn damage_is_an_error_not_a_panic_or_a_wrong_count() {
    let lists = sample_lists();
    let (stream, positions) = encode(&lists, false);
    let mut ids = Vec::new();
    // A degree that the chunks do not add up to.
    let error = decode_list(
        GapCoding::NEWEST,
        &stream,
        positions[1] as usize,
        1,
        4,
        u64::MAX,
        &mut ids,
        None,
    );
    assert_eq!(
        error,
        Err(ListCodecError::CountMismatch {
            vertex: 1,
            degree: 4
        })
    );
    // A long list whose later pages are missing.
    let start = positions[6] as usize;
    let error = decode_list(
        GapCoding::NEWEST,
        &stream[..start / PAGE * PAGE + PAGE],
        start,
        6,
        700_000,
        u64::MAX,
        &mut ids,
        None,
    );
    assert_eq!(error, Err(ListCodecError::Truncated { vertex: 6 }));
    // Zero bytes where a chunk should be.
    let zeros = vec![0u8; PAGE];
    let error = decode_list(GapCoding::NEWEST, &zeros, 0, 3, 5, u64::MAX, &mut ids, None);
    assert_eq!(error, Err(ListCodecError::Truncated { vertex: 3 }));
    // A first id coded as far from its vertex as a varint reaches, either way.
    for coded in [u64::MAX, u64::MAX - 1, 1 << 33] {
        let mut page = Vec::new();
        put_varint(2, &mut page); // one id, the list ends here
        put_varint(coded, &mut page);
        page.resize(PAGE, 0);
        let error = decode_list(GapCoding::NEWEST, &page, 0, 9, 1, 1, &mut ids, None);
        assert_eq!(
            error,
            Err(ListCodecError::IdOverflow { vertex: 9 }),
            "{coded}"
        );
    }
    // A list whose second page starts below where its first ended.
    let mut pages = Vec::new();
    for (header, first) in [(1 << 1 | 1, 100), (1 << 1, 50)] {
        let mut page = Vec::new();
        put_varint(header, &mut page);
        put_varint(crate::list_codec::zigzag(first), &mut page);
        page.resize(PAGE, 0);
        pages.extend(page);
    }
    let error = decode_list(GapCoding::NEWEST, &pages, 0, 0, 2, 2, &mut ids, None);
    assert_eq!(error, Err(ListCodecError::OutOfOrder { vertex: 0 }));
    // Random bytes decode to something or fail, never panic.
    let mut noisy = stream.clone();
    for (index, byte) in noisy.iter_mut().enumerate().step_by(7) {
        *byte ^= (index % 251) as u8;
    }
    for (vertex, list) in lists.iter().enumerate() {
        let _ = decode_list(
            GapCoding::NEWEST,
            &noisy,
            positions[vertex] as usize,
            vertex as u32,
            list.len() as u64,
            u64::MAX,
            &mut Vec::new(),
            None,
        );
    }
}

#[test]
fn a_list_pushed_in_parts_writes_the_bytes_of_the_whole_list() {
    let lists = sample_lists();
    for weighted in [false, true] {
        let whole = encode(&lists, weighted);
        for part_entries in [1, 7, 300, 4096, 100_000] {
            let (mut stream, mut positions) = (Vec::new(), Vec::new());
            let mut encoder = ListEncoder::new(weighted);
            let mut pages = |page: &[u8]| {
                stream.extend_from_slice(page);
                Ok(())
            };
            let mut position_of = |position: u64| {
                positions.push(position);
                Ok(())
            };
            for ids in &lists {
                let weights: Vec<f32> = ids.iter().map(|&id| id as f32 * 0.5).collect();
                // Each part re-measures what is held (up to a page's entries), so the
                // smallest parts go to the short lists only.
                let part_entries = match ids.len() > 5000 {
                    true => part_entries.max(4096),
                    false => part_entries,
                };
                let parts = ids.len().div_ceil(part_entries).max(1);
                for part in 0..parts {
                    let range = part * part_entries..((part + 1) * part_entries).min(ids.len());
                    encoder
                        .push_part(
                            &ids[range.clone()],
                            weighted.then_some(&weights[range]),
                            part + 1 == parts,
                            &mut pages,
                            &mut position_of,
                        )
                        .unwrap();
                }
            }
            encoder.finish(&mut pages, &mut position_of).unwrap();
            assert!(
                (stream.as_slice(), positions.as_slice())
                    == (whole.0.as_slice(), whole.1.as_slice()),
                "parts of {part_entries}, weighted {weighted}"
            );
        }
    }
}

#[test]
fn a_part_out_of_order_or_a_list_left_open_is_refused() {
    let mut encoder = ListEncoder::new(false);
    let mut ignore_pages = |_: &[u8]| Ok(());
    let mut ignore_positions = |_: u64| Ok(());
    encoder
        .push_part(
            &[5, 9],
            None,
            false,
            &mut ignore_pages,
            &mut ignore_positions,
        )
        .unwrap();
    let error = encoder
        .push_part(
            &[9, 12],
            None,
            true,
            &mut ignore_pages,
            &mut ignore_positions,
        )
        .unwrap_err();
    assert!(error.to_string().contains("not sorted"), "{error}");
    let error = encoder
        .finish(&mut ignore_pages, &mut ignore_positions)
        .unwrap_err();
    assert!(error.to_string().contains("never pushed"), "{error}");
}

#[test]
fn unsorted_ids_or_mismatched_weights_are_refused() {
    let mut encoder = ListEncoder::new(false);
    let mut ignore_pages = |_: &[u8]| Ok(());
    let mut ignore_positions = |_: u64| Ok(());
    let error = encoder
        .push(&[3, 2], None, &mut ignore_pages, &mut ignore_positions)
        .unwrap_err();
    assert!(error.to_string().contains("not sorted"), "{error}");
    let error = encoder
        .push(
            &[1, 2],
            Some(&[1.0]),
            &mut ignore_pages,
            &mut ignore_positions,
        )
        .unwrap_err();
    assert!(error.to_string().contains("weights"), "{error}");
}
