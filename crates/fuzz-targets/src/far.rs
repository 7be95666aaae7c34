//! Far memory's parsers: the reply reader of a run's `GETRANGE`s, fed by a node played
//! over loopback TCP, and a far graph's manifest.

use std::io::Write;
use std::net::{Shutdown, TcpListener};
use std::time::Duration;

use swapless_far::{decode_manifest, read_range_replies};

/// How long the reader waits for the played node: past it, a reply would hang a run.
const REPLY_TIMEOUT: Duration = Duration::from_secs(5);

/// Bytes as a node's replies to `GETRANGE`s: the first two (little-endian) are the
/// length each read expects, the rest is what the node sends before it closes. The
/// reader must end in an answer or a typed failure for each reply, never a panic or a
/// wait beyond its timeout.
pub fn redis_reply(data: &[u8]) {
    let (slot_bytes, replies) = match data {
        [low, high, replies @ ..] => (u16::from_le_bytes([*low, *high]) as usize, replies),
        _ => return,
    };
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback listener");
    let node = listener.local_addr().expect("its address").to_string();
    let replies = replies.to_vec();
    let played = std::thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        // The reader may stop early (a protocol failure), closing its end.
        if stream.write_all(&replies).is_ok() && stream.shutdown(Shutdown::Write).is_ok() {
            let _ = std::io::copy(&mut stream, &mut std::io::sink());
        }
    });
    let started = std::time::Instant::now();
    let _ = read_range_replies(&node, slot_bytes, REPLY_TIMEOUT);
    assert!(
        started.elapsed() < REPLY_TIMEOUT,
        "the reader waited past its timeout on replies that had all arrived"
    );
    played.join().expect("the played node ends");
}

/// Bytes as a far graph's manifest. One that is accepted must add up: its chunks
/// cover the file exactly, one checksum each, and its sections lie within the file.
pub fn far_manifest(data: &[u8]) {
    let Ok(manifest) = decode_manifest("fuzz", data) else {
        return;
    };
    assert_eq!(manifest.chunks(), manifest.chunk_checksums.len() as u64);
    assert!(manifest.chunk_bytes > 0);
    assert!(manifest.chunks() * manifest.chunk_bytes >= manifest.file_bytes);
    for section in &manifest.sections {
        let end = section.offset.checked_add(section.length);
        assert!(end.is_some_and(|end| end <= manifest.file_bytes));
    }
}
