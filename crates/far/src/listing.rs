//! What a cluster holds under this project's keys, and removing every key of a name.
//!
//! Both scan the keys themselves on every master, not only the manifests: a push killed
//! midway or refused leaves chunks that no manifest names, and those must show in a
//! listing and go with a removal.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use crate::cluster::Cluster;
use crate::manifest::{ALL_KEYS_PATTERN, Manifest, StoredKey, keys_pattern, manifest_key};
use crate::upload::{CONTROL_BATCH, per_node, read_manifest};
use crate::{FarAddress, FarError, far_error};
use swapless_store::Result;

/// A graph stored in far memory.
#[derive(Clone, Debug)]
pub struct StoredGraph {
    /// Its name.
    pub name: String,
    /// Its manifest.
    pub manifest: Manifest,
}

/// Chunks under a name that its manifest does not name: a push killed midway, one that
/// failed and could not remove them, or one still going.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncompletePush {
    /// The graph's name.
    pub name: String,
    /// How many such keys there are, an unreadable manifest among them.
    pub keys: u64,
    /// Whether the name's manifest is there but cannot be read (written by hand, or by
    /// something other than this project), so it names no graph.
    pub unreadable_manifest: bool,
}

/// What a cluster holds.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    /// The graphs stored whole, by name.
    pub graphs: Vec<StoredGraph>,
    /// The incomplete pushes, by name.
    pub incomplete: Vec<IncompletePush>,
}

/// What a removal removed.
#[derive(Clone, Debug)]
pub struct Removal {
    /// The manifest of the graph removed, if one was stored.
    pub manifest: Option<Manifest>,
    /// Keys removed, the manifest among them.
    pub keys: u64,
}

/// Every graph stored on the cluster behind `address`, and every incomplete push.
pub fn list(address: &FarAddress, timeout: Duration) -> Result<Listing> {
    let cluster = Cluster::discover(address, timeout)?;
    let mut manifests = BTreeSet::new();
    let mut chunks: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    scan(&cluster, ALL_KEYS_PATTERN, &mut |keys| {
        for key in keys {
            match StoredKey::parse(&key) {
                Some(StoredKey::Manifest { name }) => {
                    manifests.insert(name);
                }
                Some(StoredKey::Chunk { name, generation }) => {
                    *chunks
                        .entry(name)
                        .or_default()
                        .entry(generation)
                        .or_default() += 1;
                }
                None => {}
            }
        }
        Ok(())
    })?;
    let mut listing = Listing::default();
    let mut unreadable = BTreeSet::new();
    for name in manifests {
        match read_manifest(&cluster, &name) {
            Ok(Some(manifest)) => {
                if let Some(generations) = chunks.get_mut(&name) {
                    generations.remove(&manifest.generation);
                }
                listing.graphs.push(StoredGraph { name, manifest });
            }
            // Removed since the scan found it.
            Ok(None) => {}
            // One bad manifest must not hide every other graph; it shows as incomplete.
            Err(error) if matches!(far_error(&error), Some(FarError::BadManifest { .. })) => {
                unreadable.insert(name);
            }
            Err(error) => return Err(error),
        }
    }
    for name in &unreadable {
        chunks.entry(name.clone()).or_default();
    }
    for (name, generations) in chunks {
        let unreadable_manifest = unreadable.contains(&name);
        let keys = generations.values().sum::<u64>() + u64::from(unreadable_manifest);
        if keys > 0 {
            listing.incomplete.push(IncompletePush {
                name,
                keys,
                unreadable_manifest,
            });
        }
    }
    Ok(listing)
}

/// Removes every key of the graph `address` names, whatever push left it: the manifest
/// first (so no run starts on a graph going away), then every chunk of every
/// generation. An interrupted removal can be run again.
pub fn remove(address: &FarAddress, timeout: Duration) -> Result<Removal> {
    let cluster = Cluster::discover(address, timeout)?;
    let name = &address.name;
    // A manifest that cannot be read is removed all the same.
    let manifest = read_manifest(&cluster, name).ok().flatten();
    let mut removed = unlink(&cluster, &[manifest_key(name)])?;
    scan(&cluster, &keys_pattern(name), &mut |keys| {
        let mine: Vec<String> = keys
            .into_iter()
            .filter(|key| StoredKey::parse(key).is_some_and(|key| key.name() == name))
            .collect();
        removed += unlink(&cluster, &mine)?;
        Ok(())
    })?;
    if removed == 0 {
        return Err(FarError::NotFound {
            name: name.clone(),
            cluster: address.seeds.join(","),
        }
        .into());
    }
    Ok(Removal {
        manifest,
        keys: removed,
    })
}

/// Calls `visit` with each batch of keys matching `pattern` on every master, as `SCAN`
/// finds them (so a caller may delete them as it goes).
fn scan(
    cluster: &Cluster,
    pattern: &str,
    visit: &mut dyn FnMut(Vec<String>) -> Result<()>,
) -> Result<()> {
    for node in cluster.nodes() {
        let mut connection = cluster.idle_connection(&node)?;
        let mut cursor: u64 = 0;
        loop {
            let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(pattern)
                .arg("COUNT")
                .arg(CONTROL_BATCH * 4)
                .query(&mut connection)
                .map_err(|error| cluster.failure(&node, &error))?;
            visit(keys)?;
            cursor = next;
            if cursor == 0 {
                break;
            }
        }
        cluster.give_back(&node, connection);
    }
    Ok(())
}

/// Unlinks `keys` (freed off the node's main thread), in batches per node; returns how
/// many existed.
fn unlink(cluster: &Cluster, keys: &[String]) -> Result<u64> {
    let replies = per_node(cluster, keys, &|_, key| {
        let mut command = redis::cmd("UNLINK");
        command.arg(key);
        command
    })?;
    Ok(replies
        .iter()
        .map(|reply| match reply {
            redis::Value::Int(count) => *count as u64,
            _ => 0,
        })
        .sum())
}
