//! The read path's own connection to a plain (not TLS) node: it writes pipelined
//! `GETRANGE`s and reads each bulk reply straight into the slot that waits for it. The
//! client library parses every reply into a fresh buffer first, and that allocation, its
//! page faults and the copy take client CPU that a gather-bound run shares with its
//! compute. The control path (manifests, slot maps, uploads) and TLS connections keep
//! using the library.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use super::FarError;
use super::address::FarAddress;

/// Bytes the reader buffers: a reply's header and the tails of small replies. A payload
/// at least this long is read from the socket straight into its slot.
const READ_BUFFER_BYTES: usize = 16 << 10;

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
pub(crate) enum WireFailure {
    /// No answer within the timeout.
    Timeout,
    /// The socket failed or the node closed it.
    Io(String),
    /// Bytes that are not RESP, or not a reply `GETRANGE` can give.
    Protocol(String),
}

/// One connection to a plain node.
pub(crate) struct RangeConnection {
    reader: BufReader<TcpStream>,
    /// The commands of the batch being written, kept to reuse their allocation.
    request: Vec<u8>,
}

impl RangeConnection {
    /// Connects to `node` (`host:port`) within `timeout`, and authenticates with the
    /// address's user and password when it has them.
    pub(crate) fn open(
        address: &FarAddress,
        node: &str,
        timeout: Duration,
    ) -> Result<RangeConnection, FarError> {
        let unreachable = |detail: String| FarError::Unreachable {
            node: node.to_string(),
            detail,
        };
        let targets = node
            .to_socket_addrs()
            .map_err(|error| unreachable(error.to_string()))?;
        let mut last_error = "the name resolves to no address".to_string();
        let mut stream = None;
        for target in targets {
            match TcpStream::connect_timeout(&target, timeout) {
                Ok(made) => {
                    stream = Some(made);
                    break;
                }
                Err(error) => last_error = error.to_string(),
            }
        }
        let stream = stream.ok_or_else(|| unreachable(last_error))?;
        let configured = stream
            .set_nodelay(true)
            .and_then(|()| stream.set_read_timeout(Some(timeout)))
            .and_then(|()| stream.set_write_timeout(Some(timeout)));
        configured.map_err(|error| unreachable(error.to_string()))?;
        let mut connection = RangeConnection {
            reader: BufReader::with_capacity(READ_BUFFER_BYTES, stream),
            request: Vec::new(),
        };
        if let Some(password) = &address.password {
            let mut command: Vec<&[u8]> = vec![b"AUTH"];
            if let Some(user) = &address.user {
                command.push(user.as_bytes());
            }
            command.push(password.as_bytes());
            connection.authenticate(node, timeout, &command)?;
        }
        Ok(connection)
    }

    /// Sends `AUTH` and reads its answer.
    fn authenticate(
        &mut self,
        node: &str,
        timeout: Duration,
        command: &[&[u8]],
    ) -> Result<(), FarError> {
        self.request.clear();
        encode(&mut self.request, command);
        let answer = self.flush().and_then(|()| self.line());
        match answer {
            Ok(line) if line == "+OK" => Ok(()),
            Ok(line) => Err(FarError::Refused {
                node: node.to_string(),
                detail: line.trim_start_matches('-').to_string(),
            }),
            Err(WireFailure::Timeout) => Err(FarError::Timeout {
                node: node.to_string(),
                seconds: timeout.as_secs_f64(),
            }),
            Err(WireFailure::Io(detail) | WireFailure::Protocol(detail)) => {
                Err(FarError::Unreachable {
                    node: node.to_string(),
                    detail,
                })
            }
        }
    }

    /// Adds `GETRANGE key first last` to the batch to be sent.
    pub(crate) fn push_range(&mut self, key: &str, first: u64, last: u64) {
        let (first, last) = (first.to_string(), last.to_string());
        encode(
            &mut self.request,
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
        let written = self.reader.get_mut().write_all(&self.request);
        self.request.clear();
        written.map_err(failure)
    }

    /// Reads the next reply, a `GETRANGE`'s, into `destination` when it is exactly
    /// `destination.len()` bytes long.
    pub(crate) fn read_range(&mut self, destination: &mut [u8]) -> Result<RangeReply, WireFailure> {
        let header = self.line()?;
        let (kind, rest) = header.split_at(header.len().min(1));
        match kind {
            "-" => return Ok(RangeReply::Error(rest.to_string())),
            "$" => {}
            _ => {
                return Err(WireFailure::Protocol(format!(
                    "unexpected reply {header:?}"
                )));
            }
        }
        let length: usize = rest
            .parse()
            .map_err(|_| WireFailure::Protocol(format!("bad bulk length {header:?}")))?;
        let reply = match length == destination.len() {
            true => {
                self.reader.read_exact(destination).map_err(failure)?;
                RangeReply::Landed
            }
            false => {
                let dropped = std::io::copy(
                    &mut (&mut self.reader).take(length as u64),
                    &mut std::io::sink(),
                )
                .map_err(failure)?;
                if dropped != length as u64 {
                    return Err(WireFailure::Io("the node closed the connection".into()));
                }
                RangeReply::WrongLength(length)
            }
        };
        let mut end = [0u8; 2];
        self.reader.read_exact(&mut end).map_err(failure)?;
        match &end {
            b"\r\n" => Ok(reply),
            _ => Err(WireFailure::Protocol(
                "a bulk reply not ended by CRLF".into(),
            )),
        }
    }

    /// One line of the reply stream, without its CRLF.
    fn line(&mut self) -> Result<String, WireFailure> {
        let mut line = Vec::with_capacity(32);
        self.reader.read_until(b'\n', &mut line).map_err(failure)?;
        if !line.ends_with(b"\r\n") {
            return Err(match line.is_empty() {
                true => WireFailure::Io("the node closed the connection".into()),
                false => WireFailure::Protocol("a reply line not ended by CRLF".into()),
            });
        }
        line.truncate(line.len() - 2);
        String::from_utf8(line).map_err(|_| WireFailure::Protocol("a reply line not UTF-8".into()))
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
    fn redirections_are_told_from_errors() {
        assert!(is_redirect_reply("MOVED 3999 127.0.0.1:6381"));
        assert!(is_redirect_reply("ASK 3999 127.0.0.1:6381"));
        assert!(is_redirect_reply("CLUSTERDOWN The cluster is down"));
        assert!(!is_redirect_reply("WRONGTYPE Operation against a key"));
        assert!(!is_redirect_reply("NOAUTH Authentication required."));
    }
}
