//! The property-array reservation: arrays made through it come from its slots while it
//! is held, the smallest fitting slot first, from the heap when none fits, and a slot
//! serves again once its array is dropped; two reservations held at once each lend
//! their own slots and count their own figures.

use std::sync::atomic::{AtomicU32, Ordering};

use swapless_engine::property::{PropertyArrays, PropertyVec, property_vec, reserve};

const MIB: usize = 1 << 20;

/// An array of `bytes` bytes of u32 made through `arrays`, entry i holding i.
fn array_in(arrays: &PropertyArrays, bytes: usize) -> PropertyVec<AtomicU32> {
    let next = AtomicU32::new(0);
    property_vec(arrays, bytes / 4, || {
        AtomicU32::new(next.fetch_add(1, Ordering::Relaxed))
    })
}

#[test]
fn arrays_come_from_the_reservation_while_it_is_held() {
    let reservation = reserve(&[3 * MIB as u64, MIB as u64], 0.0).unwrap();
    let arrays = reservation.arrays().clone();
    assert_eq!(arrays.reserved_bytes(), 4 * MIB as u64);
    let array = |bytes| array_in(&arrays, bytes);
    let unreserved_property_bytes = || arrays.unreserved_bytes();
    let start = 0;

    // The 1 MiB array takes the 1 MiB slot, the next the 3 MiB one (2 MiB aligned, for
    // huge pages), and a third finds no slot and comes from the heap.
    let small = array(MIB);
    let second = array(MIB);
    assert_eq!(unreserved_property_bytes(), start);
    assert_eq!(second.as_ptr() as usize % (2 * MIB), 0);
    let third = array(MIB);
    assert_eq!(unreserved_property_bytes(), start + MIB as u64);

    // A dropped array's slot serves the next array; values are what `make` wrote.
    drop(small);
    let again = array(MIB);
    assert_eq!(unreserved_property_bytes(), start + MIB as u64);
    assert!(
        again
            .iter()
            .enumerate()
            .all(|(i, v)| v.load(Ordering::Relaxed) == i as u32)
    );

    // Copied out of a slot (in 2 MiB steps, releasing each), every value survives.
    let values = second.into_vec(|value| value.load(Ordering::Relaxed));
    assert_eq!(values.len(), MIB / 4);
    assert!(values.iter().enumerate().all(|(i, &v)| v == i as u32));
    // ...and the slot, given back, holds a new array whose values are all written.
    let refilled = array(3 * MIB);
    assert_eq!(unreserved_property_bytes(), start + MIB as u64);
    assert!(
        refilled
            .iter()
            .enumerate()
            .all(|(i, v)| v.load(Ordering::Relaxed) == i as u32)
    );
    let from_heap = third.into_vec(|value| value.load(Ordering::Relaxed));
    assert!(from_heap.iter().enumerate().all(|(i, &v)| v == i as u32));

    // Once the reservation is dropped, its free slots are gone: arrays come from the
    // heap, and are still counted as misses of the run.
    drop((again, refilled));
    drop(reservation);
    let _late = array(MIB);
    assert_eq!(unreserved_property_bytes(), start + 2 * MIB as u64);

    // Without a reservation, arrays come from the heap and are not counted as misses.
    let heap = PropertyArrays::default();
    let _plain = array_in(&heap, MIB);
    assert_eq!((heap.reserved_bytes(), heap.unreserved_bytes()), (0, 0));

    // Small and large slots mixed: every slot lies inside the mapping, large ones on a
    // 2 MiB boundary, and filling all of them leaves each array's values intact.
    let sizes = [4096, 3 * MIB, 8192, 5 * MIB, 4096];
    let mixed = reserve(&sizes.map(|bytes| bytes as u64), 0.0).unwrap();
    let arrays: Vec<_> = sizes
        .iter()
        .map(|&bytes| array_in(mixed.arrays(), bytes))
        .collect();
    assert_eq!(mixed.arrays().unreserved_bytes(), 0);
    for (values, &bytes) in arrays.iter().zip(&sizes) {
        if bytes >= 2 * MIB {
            assert_eq!(values.as_ptr() as usize % (2 * MIB), 0);
        }
        assert!(
            values
                .iter()
                .enumerate()
                .all(|(i, v)| v.load(Ordering::Relaxed) == i as u32)
        );
    }
    drop(arrays);
    drop(mixed);
}

#[test]
fn two_reservations_held_at_once_each_lend_their_own_slots() {
    let first = reserve(&[MIB as u64], 0.0).unwrap();
    let second = reserve(&[2 * MIB as u64], 0.0).unwrap();
    assert_eq!(first.arrays().reserved_bytes(), MIB as u64);
    assert_eq!(second.arrays().reserved_bytes(), 2 * MIB as u64);
    // Each run's array takes its own reservation's slot; a second array of the first
    // run misses, counted by the first run alone.
    let from_first = array_in(first.arrays(), MIB);
    let from_second = array_in(second.arrays(), 2 * MIB);
    let missed = array_in(first.arrays(), MIB);
    assert_eq!(first.arrays().unreserved_bytes(), MIB as u64);
    assert_eq!(second.arrays().unreserved_bytes(), 0);
    for values in [&from_first, &from_second, &missed] {
        assert!(
            values
                .iter()
                .enumerate()
                .all(|(i, v)| v.load(Ordering::Relaxed) == i as u32)
        );
    }
    // The first run ending releases nothing of the second's: its slot serves again.
    drop((from_first, missed, first));
    drop(from_second);
    let again = array_in(second.arrays(), 2 * MIB);
    assert_eq!(second.arrays().unreserved_bytes(), 0);
    assert_eq!(again.as_ptr() as usize % (2 * MIB), 0);
}
