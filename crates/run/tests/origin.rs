//! An origin from outside the store serves a run through the public traits alone: its
//! local file holds the graph with every list section blanked (as a far graph's cache
//! does), its page source reads the lists from another file with plain `pread`s, and
//! the run on the direct tier gives the answers of a dram run on the whole file. The
//! runner knows nothing of this origin beyond `GraphOrigin`.

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use swapless_format::GraphFile;
use swapless_run::{Kernel, Placement, ResultArray, RunError, RunOption, RunOptions, run_on};
use swapless_store::sources::{PageQueue, PageSource, QueueFailure, read_at_least};
use swapless_store::{AlignedBuffer, GraphOrigin, LocalFile, Result, StoreError, Tier, VerifyCopy};

struct Silent;
impl swapless_run::Progress for Silent {}

/// Lists in `lists`, everything else in `local`.
struct SplitOrigin {
    local: PathBuf,
    lists: PathBuf,
}

impl GraphOrigin for SplitOrigin {
    fn kind(&self) -> &'static str {
        "split"
    }
    fn shown(&self) -> String {
        format!("split:{}", self.lists.display())
    }
    fn local_file(&self) -> &Path {
        &self.local
    }
    fn tiers(&self) -> &'static [Tier] {
        &[Tier::Direct]
    }
    fn page_source(&self) -> Result<Box<dyn PageSource>> {
        let file = std::fs::File::open(&self.lists).map_err(|source| StoreError::Io {
            path: self.lists.clone(),
            source,
        })?;
        Ok(Box::new(PreadSource {
            local: self.local.clone(),
            file: std::sync::Arc::new(file),
        }))
    }
    fn verify_copy(&self) -> Result<VerifyCopy> {
        Ok(VerifyCopy::own(&self.lists))
    }
    fn figures(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({ "lists_from": self.lists.display().to_string() }))
    }
}

/// Reads pages with `pread`, its queue completing every read at once.
struct PreadSource {
    local: PathBuf,
    file: std::sync::Arc<std::fs::File>,
}

impl PageSource for PreadSource {
    fn path(&self) -> &Path {
        &self.local
    }
    fn direct_io(&self) -> bool {
        false
    }
    fn read_now(&self, buffer: &mut [u8], position: u64, needed: usize) -> Result<()> {
        read_at_least(&self.file, buffer, position, needed).map_err(|source| StoreError::Io {
            path: self.local.clone(),
            source,
        })
    }
    fn queue(&self, _arena: &AlignedBuffer, _entries: u32) -> Result<Box<dyn PageQueue>> {
        Ok(Box::new(PreadQueue {
            file: self.file.clone(),
            queued: Vec::new(),
        }))
    }
}

struct PreadQueue {
    file: std::sync::Arc<std::fs::File>,
    queued: Vec<(u64, usize, u32, u64)>,
}

impl PageQueue for PreadQueue {
    unsafe fn submit(
        &mut self,
        tag: u64,
        destination: *mut u8,
        length: u32,
        position: u64,
    ) -> Result<()> {
        self.queued
            .push((tag, destination as usize, length, position));
        Ok(())
    }

    fn complete(
        &mut self,
        _wanted: usize,
        completions: &mut Vec<(u64, i32)>,
    ) -> std::result::Result<(), QueueFailure> {
        for (tag, destination, length, position) in self.queued.drain(..) {
            // SAFETY: `submit`'s contract: the range lies in the arena and nothing else
            // touches it until this completion is reaped.
            let buffer =
                unsafe { std::slice::from_raw_parts_mut(destination as *mut u8, length as usize) };
            let read = match self.file.read_at(buffer, position) {
                Ok(read) => read as i32,
                Err(error) => -error.raw_os_error().unwrap_or(libc::EIO),
            };
            completions.push((tag, read));
        }
        Ok(())
    }
}

/// A copy of `path` with every list section's bytes zeroed.
fn without_lists(path: &Path, copy: &Path) {
    std::fs::copy(path, copy).unwrap();
    let graph = GraphFile::open(path).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(copy).unwrap();
    let lists = [
        "out_neighbors",
        "in_neighbors",
        "out_weights",
        "in_weights",
        "out_heads",
    ];
    for section in &graph.header().sections {
        if lists.contains(&section.name.as_str()) {
            file.write_all_at(&vec![0u8; section.length as usize], section.offset)
                .unwrap();
        }
    }
}

fn values(array: &ResultArray) -> Vec<f64> {
    match array {
        ResultArray::Int64(values) => values.iter().map(|&v| v as f64).collect(),
        ResultArray::Float64(values) => values.clone(),
        ResultArray::Int8(values) => values.iter().map(|&v| f64::from(v)).collect(),
        ResultArray::Edges(pairs) => pairs.iter().flatten().map(|&v| v as f64).collect(),
        ResultArray::None => Vec::new(),
    }
}

#[test]
fn an_origin_from_outside_the_store_gives_the_dram_answers() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("kron.sl");
    swapless_build::generators::write_kronecker(&whole, 15, 16, true, 5).unwrap();
    let local = dir.path().join("vertex-sections.sl");
    without_lists(&whole, &local);
    let origin = SplitOrigin {
        local,
        lists: whole.clone(),
    };
    for name in ["pr", "cc", "bfs"] {
        let kernel = Kernel::from_name(name).unwrap();
        let mut options = RunOptions {
            threads: Some(1),
            source: kernel.takes_source().then_some(1),
            placement: Placement::new(None, Some(Tier::Dram)),
            ..RunOptions::default()
        };
        let dram = run_on(&LocalFile::new(&whole), kernel, &options, &Silent).unwrap();
        // The least budget, so the pipeline reads most lists as the kernel runs.
        let mut placement = Placement::new(Some(1 << 40), None);
        placement.verify = true;
        let least = swapless_run::plan_on(&origin, kernel, &placement).unwrap();
        placement.budget_bytes = Some(least.minimum_bytes());
        options.placement = placement;
        let split = run_on(&origin, kernel, &options, &Silent).unwrap();
        assert_eq!(values(&split.array), values(&dram.array), "{name}");
        let report = split.report.to_json();
        assert_eq!(report["tier"], "direct", "{name}");
        assert_eq!(report["origin"], "split", "{name}");
        assert_eq!(report["graph"], origin.shown(), "{name}");
        assert!(report["split"]["lists_from"].is_string(), "{name}");
        assert_eq!(report["verified"], true, "{name}");
        assert!(report["bytes_read"].as_u64().unwrap() > 0, "{name}");
    }
}

#[test]
fn a_tier_the_origin_cannot_serve_is_refused_before_anything_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("kron.sl");
    swapless_build::generators::write_kronecker(&whole, 10, 4, false, 5).unwrap();
    let origin = SplitOrigin {
        local: whole.clone(),
        lists: whole.clone(),
    };
    let options = RunOptions {
        placement: Placement::new(None, Some(Tier::Mmap)),
        ..RunOptions::default()
    };
    let refused = run_on(&origin, Kernel::from_name("pr").unwrap(), &options, &Silent);
    match refused {
        Err(RunError::InvalidOption {
            option: RunOption::Tier,
            detail,
        }) => assert!(detail.contains("must be direct"), "{detail}"),
        Err(other) => panic!("refused for another reason: {other}"),
        Ok(_) => panic!("an mmap run of an origin that serves direct alone was not refused"),
    }
}

#[test]
fn a_name_no_origin_recognises_is_a_local_file() {
    let path = Path::new("/no/such/graph.sl");
    let options = swapless_store::OriginOptions::default();
    let origin = swapless_run::open_origin(path, &options, &Silent).unwrap();
    assert_eq!(origin.kind(), "file");
    assert_eq!(origin.local_file(), path);
    // A far address is the far origin's, which then reaches for its server.
    let far = swapless_run::open_origin(Path::new("redis://127.0.0.1:1/g"), &options, &Silent);
    assert!(
        matches!(far, Err(RunError::Store(_))),
        "a far address was taken as a file"
    );
}
