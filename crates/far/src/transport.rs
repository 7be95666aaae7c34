//! How a connection reaches its node by one deadline: the node's name looked up, the
//! socket connected and, for `rediss://`, the TLS handshake; then every read and write
//! of the connection, each ending by the deadline of the request under way. A peer that
//! trickles bytes, a resolver that hangs or a handshake that stalls all end at it.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

use crate::FarError;
use crate::address::{CA_VARIABLE, FarAddress};

/// A socket whose reads and writes all end by one deadline: each waits at most the time
/// left, so a peer that trickles a byte at a time cannot stretch a reply past it.
pub(crate) struct DeadlineStream {
    socket: TcpStream,
    deadline: Instant,
}

impl DeadlineStream {
    /// The time left before the deadline, or a timeout once it has passed.
    fn time_left(&self) -> std::io::Result<Duration> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        match left.is_zero() {
            true => Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the deadline passed",
            )),
            false => Ok(left),
        }
    }
}

impl Read for DeadlineStream {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        self.socket.set_read_timeout(Some(self.time_left()?))?;
        self.socket.read(buffer)
    }
}

impl Write for DeadlineStream {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.socket.set_write_timeout(Some(self.time_left()?))?;
        self.socket.write(bytes)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.socket.flush()
    }
}

/// A connection's bytes: the socket itself, or TLS over it; both bound by its deadline.
pub(crate) enum NodeSocket {
    /// `redis://`.
    Plain(DeadlineStream),
    /// `rediss://`, its handshake done.
    Tls(Box<StreamOwned<ClientConnection, DeadlineStream>>),
}

impl NodeSocket {
    /// Connects to `node` (`host:port`) by `deadline`, with TLS when `tls` is given;
    /// `timeout` is what the errors name.
    pub(crate) fn open(
        node: &str,
        tls: Option<&Arc<ClientConfig>>,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<NodeSocket, FarError> {
        let socket = DeadlineStream {
            socket: connect(node, deadline, timeout)?,
            deadline,
        };
        match tls {
            None => Ok(NodeSocket::Plain(socket)),
            Some(config) => handshake(node, config, socket, timeout)
                .map(|stream| NodeSocket::Tls(Box::new(stream))),
        }
    }

    /// Sets the deadline of the request about to be sent.
    pub(crate) fn set_deadline(&mut self, deadline: Instant) {
        match self {
            NodeSocket::Plain(plain) => plain.deadline = deadline,
            NodeSocket::Tls(tls) => tls.sock.deadline = deadline,
        }
    }
}

impl Read for NodeSocket {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        match self {
            NodeSocket::Plain(plain) => plain.read(buffer),
            NodeSocket::Tls(tls) => tls.read(buffer),
        }
    }
}

impl Write for NodeSocket {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match self {
            NodeSocket::Plain(plain) => plain.write(bytes),
            NodeSocket::Tls(tls) => tls.write(bytes),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            NodeSocket::Plain(plain) => plain.flush(),
            NodeSocket::Tls(tls) => tls.flush(),
        }
    }
}

/// A TCP connection to `node` made by `deadline`, with Nagle's delay off.
fn connect(node: &str, deadline: Instant, timeout: Duration) -> Result<TcpStream, FarError> {
    let unreachable = |detail: String| FarError::Unreachable {
        node: node.to_string(),
        detail,
    };
    let targets = match resolve(node, deadline, |node| {
        node.to_socket_addrs().map(Iterator::collect)
    }) {
        Resolution::Found(targets) => targets,
        Resolution::Failed(detail) => return Err(unreachable(detail)),
        Resolution::TooLate => {
            return Err(unreachable(format!(
                "its name was not resolved within {} s",
                timeout.as_secs_f64()
            )));
        }
    };
    let mut last_error = "the name resolves to no address".to_string();
    for target in targets {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(FarError::Timeout {
                node: node.to_string(),
                seconds: timeout.as_secs_f64(),
            });
        }
        match TcpStream::connect_timeout(&target, left) {
            Ok(socket) => {
                socket
                    .set_nodelay(true)
                    .map_err(|error| unreachable(error.to_string()))?;
                return Ok(socket);
            }
            Err(error) if error.kind() == std::io::ErrorKind::TimedOut => {
                last_error = format!(
                    "no answer to the connection within {} s",
                    timeout.as_secs_f64()
                );
            }
            Err(error) => last_error = error.to_string(),
        }
    }
    Err(unreachable(last_error))
}

/// What looking a node's name up gave.
#[derive(Debug)]
enum Resolution {
    /// Its addresses.
    Found(Vec<SocketAddr>),
    /// The resolver's refusal, in its words.
    Failed(String),
    /// No answer by the deadline.
    TooLate,
}

/// The addresses of `node` found by `lookup` by `deadline`. An address written as one
/// is taken as it is; a name is looked up on a thread of its own, because the system's
/// resolver (getaddrinfo) takes no timeout: past the deadline that thread is left to
/// finish alone.
fn resolve(
    node: &str,
    deadline: Instant,
    lookup: impl FnOnce(&str) -> std::io::Result<Vec<SocketAddr>> + Send + 'static,
) -> Resolution {
    if let Ok(address) = node.parse::<SocketAddr>() {
        return Resolution::Found(vec![address]);
    }
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Resolution::TooLate;
    }
    let (sender, answer) = std::sync::mpsc::channel();
    let name = node.to_string();
    let spawned = std::thread::Builder::new()
        .name("far-resolve".to_string())
        .spawn(move || {
            // The caller may have stopped waiting: nobody to tell then.
            let _ = sender.send(lookup(&name));
        });
    if let Err(error) = spawned {
        return Resolution::Failed(error.to_string());
    }
    match answer.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(Ok(found)) => Resolution::Found(found),
        Ok(Err(error)) => Resolution::Failed(error.to_string()),
        Err(_) => Resolution::TooLate,
    }
}

/// `socket` after a TLS handshake with `node` as `config` verifies it. The handshake's
/// reads and writes are the socket's, so they end by its deadline too.
fn handshake(
    node: &str,
    config: &Arc<ClientConfig>,
    mut socket: DeadlineStream,
    timeout: Duration,
) -> Result<StreamOwned<ClientConnection, DeadlineStream>, FarError> {
    let unreachable = |detail: String| FarError::Unreachable {
        node: node.to_string(),
        detail,
    };
    let host = node.rsplit_once(':').map_or(node, |(host, _)| host);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let name = ServerName::try_from(host.to_string()).map_err(|_| {
        unreachable(format!(
            "{host:?} is not a name a TLS certificate can be checked against"
        ))
    })?;
    let mut connection = ClientConnection::new(Arc::clone(config), name)
        .map_err(|error| unreachable(format!("the TLS handshake failed: {error}")))?;
    while connection.is_handshaking() {
        if let Err(error) = connection.complete_io(&mut socket) {
            return Err(match error.kind() {
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                    FarError::Timeout {
                        node: node.to_string(),
                        seconds: timeout.as_secs_f64(),
                    }
                }
                std::io::ErrorKind::UnexpectedEof => unreachable(
                    "the node closed the connection during the TLS handshake".to_string(),
                ),
                _ => unreachable(format!("the TLS handshake failed: {error}")),
            });
        }
    }
    Ok(StreamOwned::new(connection, socket))
}

/// The TLS settings of `address`'s connections: servers verified against the system's
/// certificate authorities and the one named by [`CA_VARIABLE`], if set.
pub(crate) fn tls_config(address: &FarAddress) -> Result<Arc<ClientConfig>, FarError> {
    let bad = |detail: String| FarError::BadAddress {
        address: address.display(),
        detail,
    };
    let mut roots = RootCertStore::empty();
    // A system store that cannot be read trusts nothing: a server is then refused as
    // unknown, and the front end says to name its authority.
    roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
    if let Some(path) = std::env::var_os(CA_VARIABLE) {
        let path = std::path::Path::new(&path);
        let pem = std::fs::read(path).map_err(|error| {
            bad(format!(
                "the certificate authority {} cannot be read: {error}",
                path.display()
            ))
        })?;
        let unusable = |detail: String| {
            bad(format!(
                "the certificate authority {} holds no usable PEM certificate: {detail}",
                path.display()
            ))
        };
        let mut added = 0;
        for certificate in CertificateDer::pem_slice_iter(&pem) {
            let certificate = certificate.map_err(|error| unusable(error.to_string()))?;
            roots
                .add(certificate)
                .map_err(|error| unusable(error.to_string()))?;
            added += 1;
        }
        if added == 0 {
            return Err(unusable("it has no BEGIN CERTIFICATE block".to_string()));
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| bad(format!("TLS cannot be set up: {error}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_that_resolves_slowly_ends_at_the_deadline() {
        let started = Instant::now();
        let deadline = started + Duration::from_millis(200);
        let slow = |_: &str| {
            std::thread::sleep(Duration::from_secs(5));
            Ok(Vec::new())
        };
        let resolution = resolve("far.example:6379", deadline, slow);
        assert!(matches!(resolution, Resolution::TooLate), "{resolution:?}");
        let took = started.elapsed();
        assert!(took < Duration::from_secs(1), "took {took:?}");
        // As an error (a deadline already past, so no lookup can win the race): the
        // node named, the bound said.
        let error = connect("far.invalid:6379", Instant::now(), Duration::from_secs(2))
            .err()
            .unwrap()
            .to_string();
        assert!(
            error.contains("far.invalid:6379") && error.contains("not resolved within 2 s"),
            "{error}"
        );
    }

    #[test]
    fn names_resolve_and_addresses_need_no_lookup() {
        let deadline = Instant::now() + Duration::from_secs(5);
        let never =
            |_: &str| -> std::io::Result<Vec<SocketAddr>> { panic!("an address needs no lookup") };
        for (node, expected) in [
            ("127.0.0.1:6379", "127.0.0.1:6379"),
            ("[::1]:6380", "[::1]:6380"),
        ] {
            match resolve(node, deadline, never) {
                Resolution::Found(found) => {
                    assert_eq!(found, vec![expected.parse::<SocketAddr>().unwrap()])
                }
                other => panic!("{node}: {other:?}"),
            }
        }
        let refused = |_: &str| Err(std::io::Error::other("no such host"));
        let resolution = resolve("nowhere.example:1", deadline, refused);
        assert!(
            matches!(&resolution, Resolution::Failed(detail) if detail == "no such host"),
            "{resolution:?}"
        );
    }
}
