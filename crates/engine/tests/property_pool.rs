//! The property-array reservation: arrays come from its slots while it is held, the
//! smallest fitting slot first, from the heap when none fits, and a slot serves again
//! once its array is dropped. One test, in its own process, because the reservation is
//! process-wide.

use std::sync::atomic::{AtomicU32, Ordering};

use swapless_engine::property::{PropertyVec, property_vec, reserve, unreserved_property_bytes};

const MIB: usize = 1 << 20;

/// An array of `bytes` bytes of u32, entry i holding i.
fn array(bytes: usize) -> PropertyVec<AtomicU32> {
    let next = AtomicU32::new(0);
    property_vec(bytes / 4, || {
        AtomicU32::new(next.fetch_add(1, Ordering::Relaxed))
    })
}

#[test]
fn arrays_come_from_the_reservation_while_it_is_held() {
    let reservation = reserve(&[3 * MIB as u64, MIB as u64]).unwrap();
    assert_eq!(reservation.bytes(), 4 * MIB as u64);
    let start = unreserved_property_bytes();

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

    // Without a reservation, arrays come from the heap and are not counted as misses.
    drop((again, refilled));
    drop(reservation);
    let after = unreserved_property_bytes();
    let _plain = array(MIB);
    assert_eq!(unreserved_property_bytes(), after);

    // A second reservation while one is held reserves nothing.
    let first = reserve(&[MIB as u64]).unwrap();
    let nested = reserve(&[MIB as u64]).unwrap();
    assert_eq!((first.bytes(), nested.bytes()), (MIB as u64, 0));
    drop((nested, first));

    // Small and large slots mixed: every slot lies inside the mapping, large ones on a
    // 2 MiB boundary, and filling all of them leaves each array's values intact.
    let sizes = [4096, 3 * MIB, 8192, 5 * MIB, 4096];
    let mixed = reserve(&sizes.map(|bytes| bytes as u64)).unwrap();
    let before = unreserved_property_bytes();
    let arrays: Vec<_> = sizes.iter().map(|&bytes| array(bytes)).collect();
    assert_eq!(unreserved_property_bytes(), before);
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
