//! The pipeline's two ways through a batch of reads: on the calling thread, read by
//! read, for calls too small to be worth more; or with an I/O thread that keeps up to
//! the queue depth in flight from the page source and hands each landed read to the
//! compute threads, which deliver it while the next ones arrive.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::Instant;

use rayon::prelude::*;

use super::slots::{GiveBack, SlotPool};
use super::{Batch, DirectStore, IoContext};
use crate::aligned::AlignedBuffer;
use crate::error::PipelineFailure;
use crate::fault::Fault;
use crate::sources::PageQueue;
use crate::stats::IoCounters;
use crate::{Result, StoreError};

/// Reads one call makes at most before the I/O thread is worth starting.
const SYNCHRONOUS_READS: usize = 2;

/// While the compute threads hold landed reads, the I/O thread sleeps until a share
/// (1 / this) of them has come back, or of the reads in flight has landed, instead of
/// waking for each. When compute is the bottleneck those reads are work in hand, so a
/// batch costs no time, and every wake-up of the I/O thread preempts a compute thread
/// on a machine with as many cores as compute threads (a streamed PageRank switched
/// threads several times a read). With nothing in hand it wakes for each.
const BATCH_DIVISOR: usize = 4;

/// A read that has landed: its index and the slots that hold it.
struct Landed {
    read: usize,
    slots: [usize; 2],
}

/// The landed reads, as an iterator that counts how long compute threads wait.
struct Feed<'a> {
    receiver: mpsc::Receiver<Landed>,
    wait_nanos: &'a AtomicU64,
}

impl Iterator for Feed<'_> {
    type Item = Landed;
    fn next(&mut self) -> Option<Landed> {
        if let Ok(landed) = self.receiver.try_recv() {
            return Some(landed);
        }
        let started = Instant::now();
        let landed = self.receiver.recv().ok();
        IoCounters::add_time(self.wait_nanos, started.elapsed());
        landed
    }
}

/// What the I/O thread shares with the compute threads during one batch.
struct Flights<'a> {
    /// The arena's slots.
    pool: &'a SlotPool,
    /// The arena's address.
    base: usize,
    /// Where landed reads go.
    landed: mpsc::Sender<Landed>,
    /// Set when the queue failed with reads in flight.
    queue_failed: &'a AtomicBool,
}

impl DirectStore {
    /// Bytes of `read` that must arrive (the section may end before its last page).
    pub(super) fn needed_bytes(batch: &Batch, index: usize) -> usize {
        let read = &batch.reads[index];
        (read.bytes.end.min(batch.lists.layout.section_bytes()) - read.bytes.start) as usize
    }

    /// Reads the batch from the page source on the calling thread: for calls too small
    /// to be worth the I/O thread, and for a call made from inside another's callback.
    fn read_synchronously(&self, batch: &Batch) -> Result<()> {
        let layout = &batch.lists.layout;
        for (index, read) in batch.reads.iter().enumerate() {
            let length = read.bytes.end - read.bytes.start;
            let needed = Self::needed_bytes(batch, index);
            let fetch = |at: u64| -> Result<AlignedBuffer> {
                let mut buffer = AlignedBuffer::zeroed(length)?;
                self.source
                    .read_now(buffer.as_mut_slice(), at + read.bytes.start, needed)?;
                IoCounters::add(&self.counters.read_requests, 1);
                IoCounters::add(&self.counters.bytes_read, length);
                Ok(buffer)
            };
            let neighbors = fetch(layout.neighbors_at)?;
            let weights = match layout.weights_at {
                Some(at) => Some(fetch(at)?),
                None => None,
            };
            let neighbors = &neighbors.as_slice()[..length as usize];
            let weights = weights.as_ref().map(|w| &w.as_slice()[..length as usize]);
            self.land(batch, index, neighbors, weights)?;
        }
        self.check_joined(&batch.split)
    }

    /// Runs the batch's reads through the page source's queue while compute threads
    /// deliver each read that lands; `meanwhile` runs on the calling thread as the first
    /// reads fly (its error is the call's, after the reads in flight have landed).
    pub(super) fn stream(
        &self,
        batch: &Batch,
        meanwhile: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let mut guard = match batch.reads.len() > SYNCHRONOUS_READS {
            true => self.io.try_lock().ok(),
            false => None,
        };
        let Some(held) = guard.as_deref_mut() else {
            meanwhile()?;
            return self.read_synchronously(batch);
        };
        let Some(context) = held.as_mut() else {
            return Err(StoreError::Pipeline {
                graph: self.source.shown(),
                failure: PipelineFailure::FailedEarlier,
            });
        };
        let IoContext { queue, arena } = context;
        let base = arena.as_mut_ptr() as usize;
        let pool = SlotPool::new(
            self.regular_slots,
            self.slot_bytes,
            self.oversize_slots as u64 * self.oversize_bytes,
            self.reads_held,
        );
        let failure: Mutex<Option<StoreError>> = Mutex::new(None);
        let remember = |error: StoreError| {
            let mut slot = failure.lock().unwrap_or_else(|poison| poison.into_inner());
            slot.get_or_insert(error);
        };
        let (sender, receiver) = mpsc::channel();
        let queue_failed = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let flights = Flights {
                pool: &pool,
                base,
                landed: sender,
                queue_failed: &queue_failed,
            };
            let pump = scope.spawn(move || self.pump(queue.as_mut(), batch, flights));
            if let Err(error) = meanwhile() {
                remember(error);
            }
            let feed = Feed {
                receiver,
                wait_nanos: &self.counters.io_wait_nanos,
            };
            feed.par_bridge().for_each(|landed| {
                let read = &batch.reads[landed.read];
                let length = (read.bytes.end - read.bytes.start) as usize;
                // SAFETY: the read into these slots has completed and the pump handed them
                // over; nobody writes them until they are given back below. Each slot is
                // at least `length` bytes of the arena.
                let slot = |index: usize| unsafe {
                    std::slice::from_raw_parts(
                        (base as u64 + pool.offset(index)) as *const u8,
                        length,
                    )
                };
                let weights = (landed.slots[1] != usize::MAX).then(|| slot(landed.slots[1]));
                let neighbors = slot(landed.slots[0]);
                // Gives the slots back even if the kernel panics, so the I/O thread never
                // waits for them in vain.
                let _give_back = GiveBack {
                    pool: &pool,
                    slots: landed.slots,
                    length: length as u64,
                };
                if let Err(error) = self.land(batch, landed.read, neighbors, weights) {
                    remember(error);
                }
            });
            match pump.join() {
                Ok(Ok(())) => {}
                Ok(Err(error)) => remember(error),
                Err(_) => remember(StoreError::Io {
                    path: self.source.path().to_path_buf(),
                    source: std::io::Error::other("the I/O thread stopped unexpectedly"),
                }),
            }
        });
        if queue_failed.load(Ordering::Relaxed) {
            // The reads in flight may still land in the arena, which must outlive them:
            // leaking it (the budget counted it) is the one way to be sure. The queue
            // goes with it; closing it would not wait for them.
            std::mem::forget(held.take());
        }
        match failure
            .into_inner()
            .unwrap_or_else(|poison| poison.into_inner())
        {
            Some(error) => Err(error),
            None => self.check_joined(&batch.split),
        }
    }

    /// The I/O thread: keeps up to `queue_depth` reads in flight and sends each one
    /// that lands to the compute threads. It returns only when nothing is in flight,
    /// so no read can land in a slot after the call ends, except if the queue itself
    /// fails: then it sets `queue_failed` and returns the error at once, and the caller
    /// must never free the queue or the arena.
    fn pump(&self, queue: &mut dyn PageQueue, batch: &Batch, flights: Flights) -> Result<()> {
        let (reads, layout) = (batch.reads, &batch.lists.layout);
        let pool = flights.pool;
        let path = || self.source.path().to_path_buf();
        let parts: Vec<u64> = std::iter::once(layout.neighbors_at)
            .chain(layout.weights_at)
            .collect();
        let mut in_flight: Vec<(u8, [usize; 2])> = vec![(0, [usize::MAX; 2]); reads.len()];
        let (mut next, mut reads_in_flight, mut requests_in_flight) = (0usize, 0usize, 0u64);
        // Reads longer than a slot that wait for room in the oversize region, oldest
        // first; regular reads behind them go ahead, so one long list does not stall
        // the queue (it did, badly, with 4 KiB chunks).
        let mut deferred: std::collections::VecDeque<usize> = std::collections::VecDeque::new();
        let mut failure: Option<StoreError> = None;
        let mut completions = Vec::new();
        let mut last_event = Instant::now();
        let length_of = |index: usize| reads[index].bytes.end - reads[index].bytes.start;
        loop {
            let returns_seen = pool.returns();
            if pool.abandoned() && failure.is_none() {
                // A kernel panicked: stop reading, so the panic reaches the caller soon.
                failure = Some(StoreError::Io {
                    path: path(),
                    source: std::io::Error::other("the kernel stopped"),
                });
            }
            while failure.is_none() && reads_in_flight < self.queue_depth {
                let oldest_deferred = deferred.front().and_then(|&index| {
                    pool.try_take(length_of(index), parts.len())
                        .map(|slots| (index, slots))
                });
                let (index, slots) = match oldest_deferred {
                    Some(taken) => {
                        deferred.pop_front();
                        taken
                    }
                    None if next < reads.len() => {
                        let length = length_of(next);
                        if !pool.fits_at_all(length, parts.len()) {
                            failure.get_or_insert(StoreError::Io {
                                path: path(),
                                source: std::io::Error::other(format!(
                                    "a read of {length} bytes is larger than the I/O buffers"
                                )),
                            });
                            break;
                        }
                        let oversize = length > self.slot_bytes;
                        let taken = match oversize && !deferred.is_empty() {
                            true => None,
                            false => pool.try_take(length, parts.len()),
                        };
                        match (taken, oversize) {
                            (Some(slots), _) => {
                                next += 1;
                                (next - 1, slots)
                            }
                            (None, true) => {
                                deferred.push_back(next);
                                next += 1;
                                continue;
                            }
                            (None, false) => break,
                        }
                    }
                    None => break,
                };
                let read = &reads[index];
                let length = length_of(index);
                for (part, &section_at) in parts.iter().enumerate() {
                    let address = (flights.base as u64 + pool.offset(slots[part])) as *mut u8;
                    let tag = ((index as u64) << 1) | part as u64;
                    // SAFETY: the slot belongs to this read alone until its completion is
                    // reaped below, inside the arena the queue was made for, which
                    // outlives every read (see `pump`'s contract).
                    let submitted = unsafe {
                        queue.submit(tag, address, length as u32, section_at + read.bytes.start)
                    };
                    if let Err(error) = submitted {
                        failure.get_or_insert(error);
                    }
                }
                in_flight[index] = (parts.len() as u8, slots);
                reads_in_flight += 1;
                requests_in_flight += parts.len() as u64;
                IoCounters::add(&self.counters.read_requests, parts.len() as u64);
                IoCounters::add(&self.counters.bytes_read, length * parts.len() as u64);
                self.counters
                    .max_queue_depth
                    .fetch_max(requests_in_flight, Ordering::Relaxed);
            }
            if reads_in_flight == 0 {
                if failure.is_some() || (next == reads.len() && deferred.is_empty()) {
                    break;
                }
                // Every read that holds room is with the compute threads: all of them
                // will come back, so waiting for a share of them cannot hang.
                let in_hand = pool.reads_held();
                let batch = (in_hand / BATCH_DIVISOR).max(1) as u64;
                pool.wait_for_returns(returns_seen, batch);
                last_event = Instant::now();
                continue;
            }
            // Landed reads the compute threads still hold are work in hand.
            let in_hand = pool.reads_held().saturating_sub(reads_in_flight);
            let completions_wanted =
                (in_hand / BATCH_DIVISOR).clamp(1, requests_in_flight as usize);
            completions.clear();
            if let Err(failed) = queue.complete(completions_wanted, &mut completions) {
                flights.queue_failed.store(true, Ordering::Relaxed);
                return Err(failed.0);
            }
            let now = Instant::now();
            let elapsed = now - last_event;
            last_event = now;
            IoCounters::add_time(&self.counters.busy_nanos, elapsed);
            // All requests were in flight until the first completion; when several were
            // waited for, the rest landed at times unknown in between: count them as in
            // flight for half the wait, so batching does not inflate the mean depth.
            let depth = requests_in_flight as f64 - (completions_wanted - 1) as f64 / 2.0;
            IoCounters::add(
                &self.counters.queue_depth_nanos,
                (elapsed.as_nanos() as f64 * depth) as u64,
            );
            for &(tag, result) in &completions {
                let result = match self.faults.next() {
                    Some(Fault::Eio) => -libc::EIO,
                    // Half of what arrived; a failed read stays failed.
                    Some(Fault::Short) if result > 0 => result / 2,
                    Some(_) => result,
                    None => result,
                };
                let index = (tag >> 1) as usize;
                requests_in_flight -= 1;
                if result < 0 {
                    failure.get_or_insert(StoreError::Io {
                        path: path(),
                        source: std::io::Error::from_raw_os_error(-result),
                    });
                } else if (result as usize) < Self::needed_bytes(batch, index) {
                    failure.get_or_insert(
                        self.truncated(
                            "a read came back short; was the file truncated while in use?",
                        ),
                    );
                }
                let flight = &mut in_flight[index];
                flight.0 -= 1;
                if flight.0 == 0 {
                    reads_in_flight -= 1;
                    let slots = flight.1;
                    let handed = failure.is_none()
                        && flights.landed.send(Landed { read: index, slots }).is_ok();
                    if !handed {
                        pool.give_back(slots, length_of(index));
                    }
                }
            }
        }
        failure.map_or(Ok(()), Err)
    }
}
