//! The far tier's own connections to a node, plain or TLS (see `transport`). The read
//! path writes pipelined `GETRANGE`s and reads each bulk reply straight into the slot
//! that waits for it: the client library parses every reply into a fresh buffer first,
//! and that allocation, its page faults and the copy take client CPU that a gather-bound
//! run shares with its compute. The control path (manifests, slot maps, uploads) builds
//! its commands with the library and sends them here, each request bound by a deadline.

use std::io::{BufRead, BufReader, Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::ClientConfig;

use crate::FarError;
use crate::address::FarAddress;
use crate::transport::NodeSocket;

/// Bytes the reader buffers: a reply's header and the tails of small replies. A payload
/// at least this long is read from the socket straight into its slot.
const READ_BUFFER_BYTES: usize = 16 << 10;

/// The deepest nesting of arrays a reply may have. The far tier's deepest reply
/// (`CLUSTER SLOTS`) nests 3; a bound keeps a hostile peer from exhausting the stack.
pub(crate) const MAX_REPLY_DEPTH: usize = 8;

/// The longest string a reply may announce (Redis's own `proto-max-bulk-len`), so that
/// a peer's length field cannot make the client allocate without bound.
const MAX_BULK_BYTES: usize = 512 << 20;

/// What a node answered to one `GETRANGE`.
pub(crate) enum RangeReply {
    /// The value's bytes, written to the destination (it was exactly their length).
    Landed,
    /// A value of another length than asked for (0: the key is missing); its bytes were
    /// read and dropped.
    WrongLength(usize),
    /// An error reply, as the node wrote it (`MOVED 3999 127.0.0.1:6381`).
    Error(String),
}

/// A failure of the connection itself: after one, it is out of step and is dropped.
#[derive(Debug)]
pub(crate) enum WireFailure {
    /// No whole answer by the deadline.
    Timeout,
    /// The socket failed or the node closed it.
    Io(String),
    /// Bytes that are not RESP, or not a reply the command can give.
    Protocol(String),
}

impl WireFailure {
    /// The failure as the far error of a request to `node` bounded by `timeout`.
    pub(crate) fn at(self, node: &str, timeout: Duration) -> FarError {
        let node = node.to_string();
        match self {
            WireFailure::Timeout => FarError::Timeout {
                node,
                seconds: timeout.as_secs_f64(),
            },
            WireFailure::Io(detail) => FarError::Unreachable { node, detail },
            WireFailure::Protocol(detail) => FarError::NotRedis { node, detail },
        }
    }
}

/// A connection to one node, buffered for reading, with the deadline of the request
/// under way.
pub(crate) struct NodeStream {
    reader: BufReader<NodeSocket>,
    /// The commands of the request being written, kept to reuse their allocation.
    request: Vec<u8>,
}

impl NodeStream {
    /// Connects to `node` (`host:port`) by `deadline`, over TLS when `tls` is given, and
    /// authenticates with the address's user and password when it has them.
    pub(crate) fn open(
        address: &FarAddress,
        tls: Option<&Arc<ClientConfig>>,
        node: &str,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<NodeStream, FarError> {
        let socket = NodeSocket::open(node, tls, deadline, timeout)?;
        let mut stream = NodeStream {
            reader: BufReader::with_capacity(READ_BUFFER_BYTES, socket),
            request: Vec::new(),
        };
        if let Some(password) = &address.password {
            let mut command: Vec<&[u8]> = vec![b"AUTH"];
            if let Some(user) = &address.user {
                command.push(user.as_bytes());
            }
            command.push(password.as_bytes());
            stream.authenticate(node, timeout, &command)?;
        }
        Ok(stream)
    }

    /// Sends `AUTH` and reads its answer.
    fn authenticate(
        &mut self,
        node: &str,
        timeout: Duration,
        command: &[&[u8]],
    ) -> Result<(), FarError> {
        encode(&mut self.request, command);
        let line = self
            .flush()
            .and_then(|()| self.line())
            .map_err(|failure| failure.at(node, timeout))?;
        match line.strip_prefix('-') {
            _ if line == "+OK" => Ok(()),
            Some(detail) => Err(FarError::Refused {
                node: node.to_string(),
                detail: detail.to_string(),
            }),
            None => {
                Err(WireFailure::Protocol(format!("{line:?} in answer to AUTH")).at(node, timeout))
            }
        }
    }

    /// Sets the deadline of the request about to be sent: every read and write of it
    /// ends by then.
    pub(crate) fn set_deadline(&mut self, deadline: Instant) {
        self.reader.get_mut().set_deadline(deadline);
    }

    /// Sends the commands added since the last call.
    pub(crate) fn flush(&mut self) -> Result<(), WireFailure> {
        let socket = self.reader.get_mut();
        // TLS may hold back bytes a write could not send: the flush sends them.
        let written = socket
            .write_all(&self.request)
            .and_then(|()| socket.flush());
        self.request.clear();
        written.map_err(failure)
    }

    /// One line of the reply stream, without its CRLF.
    fn line(&mut self) -> Result<String, WireFailure> {
        read_line(&mut self.reader)
    }

    /// Reads exactly `destination.len()` bytes of a payload, then its CRLF.
    fn payload(&mut self, destination: &mut [u8]) -> Result<(), WireFailure> {
        self.reader.read_exact(destination).map_err(failure)?;
        read_crlf(&mut self.reader)
    }

    /// Reads one whole reply of any type (see [`read_value`]).
    pub(crate) fn value(&mut self) -> Result<redis::Value, WireFailure> {
        read_value(&mut self.reader, MAX_REPLY_DEPTH)
    }
}

/// One line of a reply stream, without its CRLF; at most [`MAX_LINE_BYTES`].
fn read_line(reader: &mut impl BufRead) -> Result<String, WireFailure> {
    let mut line = Vec::with_capacity(32);
    reader
        .by_ref()
        .take(MAX_LINE_BYTES as u64)
        .read_until(b'\n', &mut line)
        .map_err(failure)?;
    if !line.ends_with(b"\r\n") {
        return Err(match line.is_empty() {
            true => WireFailure::Io("the node closed the connection".into()),
            false => WireFailure::Protocol(format!(
                "a reply line not ended by CRLF: {:?}",
                String::from_utf8_lossy(&line[..line.len().min(40)])
            )),
        });
    }
    line.truncate(line.len() - 2);
    String::from_utf8(line).map_err(|_| WireFailure::Protocol("a reply line not UTF-8".into()))
}

/// Reads the CRLF that ends a bulk payload.
fn read_crlf(reader: &mut impl Read) -> Result<(), WireFailure> {
    let mut end = [0u8; 2];
    reader.read_exact(&mut end).map_err(failure)?;
    match &end {
        b"\r\n" => Ok(()),
        _ => Err(WireFailure::Protocol(
            "a bulk reply not ended by CRLF".into(),
        )),
    }
}

/// A reply line's type (its first character) and the rest. The line is text but comes
/// from the peer, so its first character may be longer than a byte.
fn split_kind(header: &str) -> (&str, &str) {
    let first = header.chars().next().map_or(0, char::len_utf8);
    header.split_at(first)
}

/// The first 40 bytes or so of a reply line, cut at a character's boundary, for a message.
fn opening(header: &str) -> &str {
    let mut end = header.len().min(40);
    while !header.is_char_boundary(end) {
        end -= 1;
    }
    &header[..end]
}

/// Reads one whole RESP2 reply of any type, arrays nested at most `depth_left` deep.
pub(crate) fn read_value(
    reader: &mut impl BufRead,
    depth_left: usize,
) -> Result<redis::Value, WireFailure> {
    let header = read_line(reader)?;
    let (kind, rest) = split_kind(&header);
    let count = |rest: &str| -> Result<Option<usize>, WireFailure> {
        match rest {
            "-1" => Ok(None),
            _ => rest
                .parse::<usize>()
                .map(Some)
                .map_err(|_| WireFailure::Protocol(format!("bad length {header:?}"))),
        }
    };
    match kind {
        "+" if rest == "OK" => Ok(redis::Value::Okay),
        "+" => Ok(redis::Value::SimpleString(rest.to_string())),
        ":" => rest
            .parse()
            .map(redis::Value::Int)
            .map_err(|_| WireFailure::Protocol(format!("bad integer {header:?}"))),
        // The library's parser turns the line into the error kind its callers match
        // (MOVED, ASK, TRYAGAIN...); a single line holds no nesting.
        "-" => redis::parse_redis_value(format!("{header}\r\n").as_bytes())
            .map_err(|error| WireFailure::Protocol(error.to_string())),
        "$" => match count(rest)? {
            None => Ok(redis::Value::Nil),
            Some(length) if length > MAX_BULK_BYTES => Err(WireFailure::Protocol(format!(
                "a string of {length} bytes announced"
            ))),
            Some(length) => {
                // Room for exactly the announced bytes: pages the peer never sends are
                // never touched.
                let mut bytes = Vec::with_capacity(length);
                reader
                    .by_ref()
                    .take(length as u64)
                    .read_to_end(&mut bytes)
                    .map_err(failure)?;
                if bytes.len() != length {
                    return Err(WireFailure::Io("the node closed the connection".into()));
                }
                read_crlf(reader)?;
                Ok(redis::Value::BulkString(bytes))
            }
        },
        "*" => match count(rest)? {
            None => Ok(redis::Value::Nil),
            Some(_) if depth_left == 0 => Err(WireFailure::Protocol(format!(
                "arrays nested deeper than {MAX_REPLY_DEPTH}"
            ))),
            Some(length) => {
                // The count is the peer's word: the vector grows as elements arrive.
                let mut elements = Vec::with_capacity(length.min(1024));
                for _ in 0..length {
                    elements.push(read_value(reader, depth_left - 1)?);
                }
                Ok(redis::Value::Array(elements))
            }
        },
        _ => Err(WireFailure::Protocol(format!(
            "unexpected reply {:?}",
            opening(&header)
        ))),
    }
}

/// The longest reply line read: a header, a status or an error message.
const MAX_LINE_BYTES: usize = 64 << 10;

/// One connection of the read path to a node.
pub(crate) struct RangeConnection {
    stream: NodeStream,
}

impl RangeConnection {
    /// Connects to `node` by `deadline` (see [`NodeStream::open`]).
    pub(crate) fn open(
        address: &FarAddress,
        tls: Option<&Arc<ClientConfig>>,
        node: &str,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<RangeConnection, FarError> {
        NodeStream::open(address, tls, node, deadline, timeout)
            .map(|stream| RangeConnection { stream })
    }

    /// Sets the deadline of the batch about to be sent.
    pub(crate) fn set_deadline(&mut self, deadline: Instant) {
        self.stream.set_deadline(deadline);
    }

    /// Adds `GETRANGE key first last` to the batch to be sent.
    pub(crate) fn push_range(&mut self, key: &str, first: u64, last: u64) {
        let (first, last) = (first.to_string(), last.to_string());
        encode(
            &mut self.stream.request,
            &[
                b"GETRANGE",
                key.as_bytes(),
                first.as_bytes(),
                last.as_bytes(),
            ],
        );
    }

    /// Sends the batch of commands added since the last call.
    pub(crate) fn flush(&mut self) -> Result<(), WireFailure> {
        self.stream.flush()
    }

    /// Reads the next reply, a `GETRANGE`'s, into `destination` when it is exactly
    /// `destination.len()` bytes long.
    pub(crate) fn read_range(&mut self, destination: &mut [u8]) -> Result<RangeReply, WireFailure> {
        let header = self.stream.line()?;
        let (kind, rest) = split_kind(&header);
        match kind {
            "-" => return Ok(RangeReply::Error(rest.to_string())),
            "$" => {}
            _ => {
                return Err(WireFailure::Protocol(format!(
                    "unexpected reply {:?}",
                    opening(&header)
                )));
            }
        }
        let length: usize = rest
            .parse()
            .map_err(|_| WireFailure::Protocol(format!("bad bulk length {header:?}")))?;
        if length == destination.len() {
            self.stream.payload(destination)?;
            return Ok(RangeReply::Landed);
        }
        let dropped = std::io::copy(
            &mut (&mut self.stream.reader).take(length as u64),
            &mut std::io::sink(),
        )
        .map_err(failure)?;
        if dropped != length as u64 {
            return Err(WireFailure::Io("the node closed the connection".into()));
        }
        read_crlf(&mut self.stream.reader)?;
        Ok(RangeReply::WrongLength(length))
    }
}

/// A connection of the control path (slot maps, manifests, uploads), spoken to through
/// the client library's commands and pipelines: each request, written and answered
/// whole, ends by its own deadline, `timeout` after it is sent.
pub(crate) struct ControlStream {
    stream: NodeStream,
    timeout: Duration,
    /// A time no request on this connection may run past (a slot map's refresh).
    limit: Option<Instant>,
    /// False once a request failed: the connection may be out of step.
    open: bool,
}

impl ControlStream {
    /// Connects to `node` by `deadline`; later requests end by `limit` too, if given.
    pub(crate) fn open(
        address: &FarAddress,
        tls: Option<&Arc<ClientConfig>>,
        node: &str,
        timeout: Duration,
        limit: Option<Instant>,
    ) -> Result<ControlStream, FarError> {
        let deadline = request_deadline(timeout, limit);
        let stream = NodeStream::open(address, tls, node, deadline, timeout)?;
        Ok(ControlStream {
            stream,
            timeout,
            limit,
            open: true,
        })
    }

    /// Sends `packed` (commands the library encoded) and reads `count` replies.
    fn request(&mut self, packed: &[u8], count: usize) -> Result<Vec<redis::Value>, WireFailure> {
        self.stream
            .set_deadline(request_deadline(self.timeout, self.limit));
        self.stream.request.extend_from_slice(packed);
        self.stream.flush()?;
        (0..count).map(|_| self.stream.value()).collect()
    }

    /// [`ControlStream::request`] with failures as the library's errors, which the
    /// cluster sorts back into far errors.
    fn library_request(
        &mut self,
        packed: &[u8],
        count: usize,
    ) -> redis::RedisResult<Vec<redis::Value>> {
        self.request(packed, count).map_err(|failure| {
            self.open = false;
            library_error(failure)
        })
    }
}

/// The deadline of a request sent now: `timeout` from now, or `limit` if sooner.
fn request_deadline(timeout: Duration, limit: Option<Instant>) -> Instant {
    let deadline = Instant::now() + timeout;
    limit.map_or(deadline, |limit| limit.min(deadline))
}

/// A failure as the client library's error: a timeout or a lost connection as I/O
/// errors (which callers retry), bytes that are not RESP as a parse error.
fn library_error(failure: WireFailure) -> redis::RedisError {
    match failure {
        WireFailure::Timeout => {
            std::io::Error::new(std::io::ErrorKind::TimedOut, "no whole answer in time").into()
        }
        WireFailure::Io(detail) => {
            std::io::Error::new(std::io::ErrorKind::ConnectionAborted, detail).into()
        }
        WireFailure::Protocol(detail) => {
            (redis::ErrorKind::Parse, "not the Redis protocol", detail).into()
        }
    }
}

impl redis::ConnectionLike for ControlStream {
    fn req_packed_command(&mut self, packed: &[u8]) -> redis::RedisResult<redis::Value> {
        let mut replies = self.library_request(packed, 1)?;
        Ok(replies.pop().unwrap_or_default())
    }

    fn req_packed_commands(
        &mut self,
        packed: &[u8],
        offset: usize,
        count: usize,
    ) -> redis::RedisResult<Vec<redis::Value>> {
        let mut replies = self.library_request(packed, offset + count)?;
        Ok(replies.split_off(offset.min(replies.len())))
    }

    fn get_db(&self) -> i64 {
        0
    }

    fn check_connection(&mut self) -> bool {
        redis::cmd("PING").query::<String>(self).is_ok()
    }

    fn is_open(&self) -> bool {
        self.open
    }
}

/// `words` as a RESP array of bulk strings, appended to `request`.
fn encode(request: &mut Vec<u8>, words: &[&[u8]]) {
    request.extend_from_slice(format!("*{}\r\n", words.len()).as_bytes());
    for word in words {
        request.extend_from_slice(format!("${}\r\n", word.len()).as_bytes());
        request.extend_from_slice(word);
        request.extend_from_slice(b"\r\n");
    }
}

/// A socket error sorted into a timeout or a lost connection.
fn failure(error: std::io::Error) -> WireFailure {
    match error.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => WireFailure::Timeout,
        std::io::ErrorKind::UnexpectedEof => {
            WireFailure::Io("the node closed the connection".to_string())
        }
        _ => WireFailure::Io(error.to_string()),
    }
}

/// Whether an error reply asks the client to follow the cluster's new map and try again.
pub(crate) fn is_redirect_reply(text: &str) -> bool {
    ["MOVED ", "ASK ", "TRYAGAIN", "CLUSTERDOWN"]
        .iter()
        .any(|prefix| text.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_resp_arrays_of_bulk_strings() {
        let mut request = Vec::new();
        encode(&mut request, &[b"GETRANGE", b"k", b"0", b"9"]);
        assert_eq!(
            request,
            b"*4\r\n$8\r\nGETRANGE\r\n$1\r\nk\r\n$1\r\n0\r\n$1\r\n9\r\n"
        );
    }

    #[test]
    fn replies_are_read_whole_and_nesting_is_bounded() {
        let mut reply: &[u8] = b"*3\r\n:1\r\n$3\r\nabc\r\n*1\r\n+OK\r\n";
        let value = read_value(&mut reply, MAX_REPLY_DEPTH).unwrap();
        assert_eq!(
            value,
            redis::Value::Array(vec![
                redis::Value::Int(1),
                redis::Value::BulkString(b"abc".to_vec()),
                redis::Value::Array(vec![redis::Value::Okay]),
            ])
        );
        // As deep as allowed, then one deeper.
        let deep = |depth: usize| {
            let mut bytes = b"*1\r\n".repeat(depth);
            bytes.extend_from_slice(b":7\r\n");
            bytes
        };
        assert!(read_value(&mut &deep(MAX_REPLY_DEPTH)[..], MAX_REPLY_DEPTH).is_ok());
        let too_deep = read_value(&mut &deep(MAX_REPLY_DEPTH + 1)[..], MAX_REPLY_DEPTH);
        assert!(
            matches!(&too_deep, Err(WireFailure::Protocol(detail)) if detail.contains("nested deeper")),
            "{too_deep:?}"
        );
        // A million levels end at the bound, with no stack to spare spent.
        let hostile = b"*1\r\n".repeat(1_000_000);
        assert!(read_value(&mut &hostile[..], MAX_REPLY_DEPTH).is_err());
    }

    #[test]
    fn bytes_that_are_not_resp_are_refused_in_one_line() {
        for bytes in [
            &b"HTTP/1.1 400 Bad Request\r\n\r\n"[..],
            b"$99999999999\r\n",
            b"$-5\r\n",
            b"*abc\r\n",
            b"$3\r\nabcXY",
            b"+no end",
            // A first character longer than a byte (a finding of the redis_reply fuzzer).
            "ӷ*\r\n".as_bytes(),
            format!("{}\r\n", "ӷ".repeat(30)).as_bytes(),
        ] {
            match read_value(&mut &bytes[..], MAX_REPLY_DEPTH) {
                Err(WireFailure::Protocol(detail)) => assert!(!detail.contains('\n'), "{detail}"),
                other => panic!("{:?}: {other:?}", String::from_utf8_lossy(bytes)),
            }
        }
        // A server's error reply is a value the library sorts by kind.
        let moved = read_value(&mut &b"-MOVED 3999 127.0.0.1:6381\r\n"[..], 1).unwrap();
        assert!(matches!(moved, redis::Value::ServerError(_)), "{moved:?}");
    }

    #[test]
    fn redirections_are_told_from_errors() {
        assert!(is_redirect_reply("MOVED 3999 127.0.0.1:6381"));
        assert!(is_redirect_reply("ASK 3999 127.0.0.1:6381"));
        assert!(is_redirect_reply("CLUSTERDOWN The cluster is down"));
        assert!(!is_redirect_reply("WRONGTYPE Operation against a key"));
        assert!(!is_redirect_reply("NOAUTH Authentication required."));
    }
}
