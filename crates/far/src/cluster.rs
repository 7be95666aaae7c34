//! The nodes that hold a far graph and which of them owns each key: a Redis Cluster's
//! slot map, found from any one seed node (`CLUSTER SLOTS`), or one plain server that
//! owns every key. The map is refreshed when a node redirects a request (`MOVED`,
//! `ASK`), after a failover or a resharding.
//!
//! Every wait is bounded by the timeout: each request on a connection, and each refresh
//! of the map as a whole.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use crate::transport::tls_config;
use crate::wire::ControlStream;
use crate::{FarAddress, FarError};

/// Hash slots of a Redis Cluster.
pub(crate) const SLOTS: usize = 16384;

const CRC16: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_XMODEM);

/// The slot of `key`: CRC16 of the key, or of its `{hash tag}` when it has one.
pub(crate) fn key_slot(key: &[u8]) -> u16 {
    let tagged = key.iter().position(|&b| b == b'{').and_then(|open| {
        let close = key[open + 1..].iter().position(|&b| b == b'}')?;
        (close > 0).then(|| &key[open + 1..open + 1 + close])
    });
    CRC16.checksum(tagged.unwrap_or(key)) % SLOTS as u16
}

/// Which node owns each slot.
#[derive(Clone)]
struct SlotMap {
    /// Masters, `host:port` each.
    nodes: Vec<String>,
    /// The index in `nodes` of each slot's master.
    owner: Vec<u16>,
    /// Whether the nodes form a Redis Cluster (else one plain server).
    clustered: bool,
}

/// A far graph's nodes.
pub(crate) struct Cluster {
    pub(crate) address: FarAddress,
    pub(crate) timeout: Duration,
    /// How connections verify the nodes, for `rediss://`: read once, as the system's
    /// certificate store takes a while to load.
    pub(crate) tls: Option<Arc<rustls::ClientConfig>>,
    map: RwLock<SlotMap>,
    /// Connections of the control path (manifests, the cache, small reads) kept for the
    /// next call, one a node at most: a connection costs a round trip and a handshake.
    idle: Mutex<HashMap<String, ControlStream>>,
    /// Nodes whose last slot map request failed: a refresh asks them last, so that one
    /// silent node does not spend a refresh's whole time.
    failing: Mutex<Vec<String>>,
}

impl Cluster {
    /// Finds the cluster (or the single server) behind `address`'s seeds.
    pub(crate) fn discover(address: &FarAddress, timeout: Duration) -> Result<Cluster, FarError> {
        let tls = match address.tls {
            true => Some(tls_config(address)?),
            false => None,
        };
        let cluster = Cluster {
            address: address.clone(),
            timeout,
            tls,
            map: RwLock::new(SlotMap {
                nodes: Vec::new(),
                owner: Vec::new(),
                clustered: false,
            }),
            idle: Mutex::new(HashMap::new()),
            failing: Mutex::new(Vec::new()),
        };
        cluster.refresh()?;
        Ok(cluster)
    }

    /// Reads the slot map again from the first node that answers, within the timeout:
    /// the known masters first, then the seeds, nodes that failed last.
    pub(crate) fn refresh(&self) -> Result<(), FarError> {
        self.refresh_before(Instant::now() + self.timeout)
    }

    /// [`Cluster::refresh`], given up at `deadline`.
    pub(crate) fn refresh_before(&self, deadline: Instant) -> Result<(), FarError> {
        let mut nodes = self
            .map
            .read()
            .map(|map| map.nodes.clone())
            .unwrap_or_default();
        for seed in &self.address.seeds {
            if !nodes.contains(seed) {
                nodes.push(seed.clone());
            }
        }
        let failing = self.failing.lock().map(|f| f.clone()).unwrap_or_default();
        nodes.sort_by_key(|node| failing.contains(node));
        let mut last_error = None;
        for node in &nodes {
            if Instant::now() >= deadline && last_error.is_some() {
                break;
            }
            let answer = self.map_from(node, deadline);
            if let Ok(mut failing) = self.failing.lock() {
                failing.retain(|known| known != node);
                if answer.is_err() {
                    failing.push(node.clone());
                }
            }
            match answer {
                Ok(map) => {
                    if let Ok(mut current) = self.map.write() {
                        *current = map;
                    }
                    return Ok(());
                }
                // Credentials a node refuses, every node refuses.
                Err(error @ FarError::Refused { .. }) => return Err(error),
                Err(error) => last_error = Some(error),
            }
        }
        Err(last_error.unwrap_or_else(|| FarError::BadAddress {
            address: self.address.display(),
            detail: "it names no node".to_string(),
        }))
    }

    /// The slot map as `node` sees it.
    fn map_from(&self, node: &str, deadline: Instant) -> Result<SlotMap, FarError> {
        let mut connection = self.connect_before(node, Some(deadline))?;
        let slots: Result<redis::Value, _> =
            redis::cmd("CLUSTER").arg("SLOTS").query(&mut connection);
        let value = match slots {
            Ok(value) => value,
            // A plain server: it owns every key.
            Err(error) if error.to_string().contains("cluster support disabled") => {
                return Ok(SlotMap {
                    nodes: vec![node.to_string()],
                    owner: vec![0; SLOTS],
                    clustered: false,
                });
            }
            Err(error) => return Err(self.failure(node, &error)),
        };
        let malformed = |detail: &str| FarError::Server {
            node: node.to_string(),
            detail: format!("CLUSTER SLOTS gave {detail}"),
        };
        let redis::Value::Array(ranges) = value else {
            return Err(malformed("no array"));
        };
        let seed_host = node.rsplit_once(':').map_or(node, |(host, _)| host);
        let mut map = SlotMap {
            nodes: Vec::new(),
            owner: vec![u16::MAX; SLOTS],
            clustered: true,
        };
        for range in ranges {
            let redis::Value::Array(fields) = range else {
                return Err(malformed("a range that is not an array"));
            };
            let number = |value: Option<&redis::Value>| match value {
                Some(redis::Value::Int(number)) => Some(*number),
                _ => None,
            };
            let (Some(first), Some(last)) = (number(fields.first()), number(fields.get(1))) else {
                return Err(malformed("a range without bounds"));
            };
            let Some(redis::Value::Array(master)) = fields.get(2) else {
                return Err(malformed("a range without a master"));
            };
            let host = match master.first() {
                Some(redis::Value::BulkString(host)) => String::from_utf8_lossy(host).into_owned(),
                Some(redis::Value::SimpleString(host)) => host.clone(),
                _ => String::new(),
            };
            // An empty or unknown host means "the node you asked".
            let host = match host.as_str() {
                "" | "?" => seed_host.to_string(),
                _ => host,
            };
            let Some(port) = number(master.get(1)) else {
                return Err(malformed("a master without a port"));
            };
            let name = match host.contains(':') && !host.starts_with('[') {
                true => format!("[{host}]:{port}"),
                false => format!("{host}:{port}"),
            };
            let index = match map.nodes.iter().position(|known| *known == name) {
                Some(index) => index,
                None => {
                    map.nodes.push(name);
                    map.nodes.len() - 1
                }
            };
            for slot in first.max(0) as usize..=(last.max(0) as usize).min(SLOTS - 1) {
                map.owner[slot] = index as u16;
            }
        }
        if map.owner.contains(&u16::MAX) {
            return Err(FarError::Server {
                node: node.to_string(),
                detail: "the cluster does not cover every hash slot (CLUSTERDOWN)".to_string(),
            });
        }
        Ok(map)
    }

    /// A new connection to `node`, each request on it ending by the timeout.
    pub(crate) fn connect(&self, node: &str) -> Result<ControlStream, FarError> {
        self.connect_before(node, None)
    }

    /// [`Cluster::connect`], the connection and every request on it ending by `limit`
    /// too, if given.
    fn connect_before(
        &self,
        node: &str,
        limit: Option<Instant>,
    ) -> Result<ControlStream, FarError> {
        ControlStream::open(&self.address, self.tls.as_ref(), node, self.timeout, limit)
    }

    /// A connection to `node` kept from an earlier call, or a new one.
    pub(crate) fn idle_connection(&self, node: &str) -> Result<ControlStream, FarError> {
        let kept = self.idle.lock().ok().and_then(|mut idle| idle.remove(node));
        match kept {
            Some(connection) => Ok(connection),
            None => self.connect(node),
        }
    }

    /// Keeps `connection` to `node` for the next call.
    pub(crate) fn give_back(&self, node: &str, connection: ControlStream) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.insert(node.to_string(), connection);
        }
    }

    /// `error` from `node` as a far error; a cluster that is down names its failed
    /// masters.
    pub(crate) fn failure(&self, node: &str, error: &redis::RedisError) -> FarError {
        self.with_failed_masters(FarError::from_redis(
            node,
            error,
            self.timeout.as_secs_f64(),
        ))
    }

    /// `error`, when it says the cluster is down, with the masters that the node which
    /// said so counts as failed (`CLUSTER NODES`); any other error as it is.
    pub(crate) fn with_failed_masters(&self, error: FarError) -> FarError {
        let FarError::ClusterDown { node, failed } = error else {
            return error;
        };
        if !failed.is_empty() {
            return FarError::ClusterDown { node, failed };
        }
        let listing: Option<String> = self.connect(&node).ok().and_then(|mut connection| {
            redis::cmd("CLUSTER")
                .arg("NODES")
                .query(&mut connection)
                .ok()
        });
        // Each line: id host:port@bus flags master-id ...; a failed master's flags hold
        // `master` and `fail` (or `fail?` before the others agree).
        let failed = listing
            .unwrap_or_default()
            .lines()
            .filter_map(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                let (address, flags) = (fields.get(1)?, fields.get(2)?);
                let flags: Vec<&str> = flags.split(',').collect();
                let down = flags.contains(&"fail") || flags.contains(&"fail?");
                (flags.contains(&"master") && down)
                    .then(|| address.split('@').next().unwrap_or(address).to_string())
            })
            .collect();
        FarError::ClusterDown { node, failed }
    }

    /// The masters, `host:port` each.
    pub(crate) fn nodes(&self) -> Vec<String> {
        self.map
            .read()
            .map(|map| map.nodes.clone())
            .unwrap_or_default()
    }

    /// The master that owns `key`, as an index into [`Cluster::nodes`] and its name.
    pub(crate) fn owner_of(&self, key: &[u8]) -> (usize, String) {
        let map = match self.map.read() {
            Ok(map) => map,
            Err(poisoned) => poisoned.into_inner(),
        };
        let index = map.owner[key_slot(key) as usize] as usize;
        (index, map.nodes[index].clone())
    }

    /// Whether the nodes form a Redis Cluster.
    pub(crate) fn clustered(&self) -> bool {
        self.map.read().map(|map| map.clustered).unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_slots_match_redis_cluster() {
        // Values from the Redis Cluster specification and `CLUSTER KEYSLOT`.
        assert_eq!(key_slot(b"123456789"), 0x31C3);
        assert_eq!(key_slot(b"foo"), 12182);
        assert_eq!(key_slot(b"{user1000}.following"), key_slot(b"user1000"));
        // An empty tag is no tag.
        assert_eq!(key_slot(b"foo{}{bar}"), key_slot(b"foo{}{bar}"));
        assert_ne!(key_slot(b"a{}b"), key_slot(b""));
    }
}
