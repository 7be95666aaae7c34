//! Lists a scan splits between two reads so that no page is read twice (see
//! [`crate::lists::read_plan::scan_reads`]): whichever read lands first leaves its side of the
//! list here; the second joins both sides and delivers the list.

use std::sync::Mutex;

use crate::lists::read_plan::Read;

/// Which side of a split list a read holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// The list's start, from the last page of the earlier read.
    Head,
    /// The rest, from the first page of the later read.
    Tail,
}

/// One side of a split list: its entries, and its weights on a weighted graph.
struct Piece {
    side: Side,
    neighbors: Vec<u32>,
    weights: Option<Vec<f32>>,
}

/// The two sides of a list in order, `here` being `side`.
fn join<T: Copy>(side: Side, waiting: &[T], here: &[T]) -> Vec<T> {
    match side {
        Side::Head => [here, waiting].concat(),
        Side::Tail => [waiting, here].concat(),
    }
}

/// A split list put back together.
pub(crate) struct Joined {
    /// The list's neighbor ids.
    pub neighbors: Vec<u32>,
    /// Its weights, on a weighted graph.
    pub weights: Option<Vec<f32>>,
}

/// The split lists of one batch of scan reads, by the index of the read that holds
/// the tail (16 bytes a read while none waits: a batch holds up to 16 K reads).
pub(crate) struct SplitLists {
    waiting: Vec<Mutex<Option<Box<Piece>>>>,
}

impl SplitLists {
    /// Room for the lists `reads` split (none when no read splits one).
    pub fn new(reads: &[Read]) -> SplitLists {
        let splits = reads.iter().any(|read| read.head_bytes > 0);
        SplitLists {
            waiting: (0..if splits { reads.len() } else { 0 })
                .map(|_| Mutex::new(None))
                .collect(),
        }
    }

    /// Hands over one side of the list split before read `tail_read`: the whole list
    /// if the other side was already here, else nothing (this side waits).
    pub fn offer(
        &self,
        tail_read: usize,
        side: Side,
        neighbors: &[u32],
        weights: Option<&[f32]>,
    ) -> Option<Joined> {
        let other = {
            let mut waiting = self.waiting[tail_read]
                .lock()
                .unwrap_or_else(|poison| poison.into_inner());
            match waiting.take() {
                Some(other) => other,
                None => {
                    *waiting = Some(Box::new(Piece {
                        side,
                        neighbors: neighbors.to_vec(),
                        weights: weights.map(<[f32]>::to_vec),
                    }));
                    return None;
                }
            }
        };
        debug_assert_ne!(other.side, side, "both reads gave the same side");
        Some(Joined {
            neighbors: join(side, &other.neighbors, neighbors),
            weights: other
                .weights
                .zip(weights)
                .map(|(waiting, here)| join(side, &waiting, here)),
        })
    }

    /// How many split lists still wait for their other side (0 after a whole batch).
    pub fn unjoined(&self) -> usize {
        self.waiting
            .iter()
            .filter(|waiting| {
                waiting
                    .lock()
                    .unwrap_or_else(|poison| poison.into_inner())
                    .is_some()
            })
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lists::read_plan::Members;

    #[test]
    fn either_side_first_gives_the_list_in_order() {
        let read = |head_bytes| Read {
            members: Members::Span(0..1),
            bytes: 0..4096,
            head_bytes,
            last_list_entries: None,
        };
        let split = SplitLists::new(&[read(0), read(8), read(0), read(4)]);
        assert!(split.offer(1, Side::Head, &[1, 2], None).is_none());
        let joined = split.offer(1, Side::Tail, &[3], None).unwrap();
        assert_eq!(joined.neighbors, [1, 2, 3]);
        assert!(
            split
                .offer(3, Side::Tail, &[9, 8], Some(&[0.5, 0.25]))
                .is_none()
        );
        assert_eq!(split.unjoined(), 1);
        let joined = split.offer(3, Side::Head, &[7], Some(&[1.0])).unwrap();
        assert_eq!(joined.neighbors, [7, 9, 8]);
        assert_eq!(joined.weights.unwrap(), [1.0, 0.5, 0.25]);
        assert_eq!(split.unjoined(), 0);
    }

    #[test]
    fn reads_that_split_nothing_need_no_room() {
        let read = Read {
            members: Members::Span(0..1),
            bytes: 0..4096,
            head_bytes: 0,
            last_list_entries: None,
        };
        assert_eq!(SplitLists::new(&[read.clone(), read]).waiting.len(), 0);
        assert_eq!(std::mem::size_of::<Mutex<Option<Box<Piece>>>>(), 16);
    }
}
