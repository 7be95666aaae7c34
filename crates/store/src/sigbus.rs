//! A file the mmap tier has mapped that shrinks under it makes the next read of a page
//! past its new end raise SIGBUS, which would end the process without a word. Each call
//! checks the file's length first, but a file cut short during a call still faults.
//! This handler turns a SIGBUS inside a guarded mapping into one clear sentence on
//! stderr and exit status 1: no wrong result can follow, and none is written (outputs
//! are renamed into place only when complete). A SIGBUS anywhere else goes to the
//! handler that was there before (Rust's stack-overflow check, or the default action).

use std::ops::Range;
use std::path::Path;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

/// Mappings guarded at once (one per open mmap store; more are left unguarded).
const SLOTS: usize = 16;

/// One guarded mapping and the message to print when it faults.
struct Slot {
    claimed: AtomicBool,
    /// First byte of the mapping; 0 while the slot is not (yet) valid.
    start: AtomicUsize,
    end: AtomicUsize,
    message: AtomicPtr<u8>,
    message_len: AtomicUsize,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            claimed: AtomicBool::new(false),
            start: AtomicUsize::new(0),
            end: AtomicUsize::new(0),
            message: AtomicPtr::new(std::ptr::null_mut()),
            message_len: AtomicUsize::new(0),
        }
    }
}

static SLOTS_IN_USE: [Slot; SLOTS] = [const { Slot::new() }; SLOTS];

/// The action SIGBUS had before ours, for faults outside every guarded mapping.
static PREVIOUS: AtomicPtr<libc::sigaction> = AtomicPtr::new(std::ptr::null_mut());

static INSTALL: Once = Once::new();

/// While alive, a SIGBUS inside its mapping ends the process with its message.
pub struct Guard {
    slot: Option<usize>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(index) = self.slot {
            let slot = &SLOTS_IN_USE[index];
            slot.start.store(0, Ordering::SeqCst);
            let message = slot.message.swap(std::ptr::null_mut(), Ordering::SeqCst);
            let length = slot.message_len.load(Ordering::SeqCst);
            if !message.is_null() {
                // SAFETY: made by `Box::into_raw` in `guard` with this length; the slot no
                // longer matches any address, so the handler cannot be reading it.
                drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(message, length)) });
            }
            slot.claimed.store(false, Ordering::SeqCst);
        }
    }
}

/// Guards `mapping` (addresses of the map of the file at `path`) until the guard drops.
pub fn guard(mapping: Range<usize>, path: &Path) -> Guard {
    INSTALL.call_once(install);
    let Some(index) = SLOTS_IN_USE.iter().position(|slot| {
        slot.claimed
            .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }) else {
        return Guard { slot: None };
    };
    let text = format!(
        "error: the graph file {} was cut short while the mmap tier was reading it; the run stopped and wrote no result. Restore the file (or build it again) and rerun.\n",
        path.display()
    );
    let message = Box::into_raw(text.into_bytes().into_boxed_slice());
    let slot = &SLOTS_IN_USE[index];
    slot.message_len.store(message.len(), Ordering::SeqCst);
    slot.message.store(message.cast::<u8>(), Ordering::SeqCst);
    slot.end.store(mapping.end, Ordering::SeqCst);
    // Last: a non-zero start makes the slot match.
    slot.start.store(mapping.start, Ordering::SeqCst);
    Guard { slot: Some(index) }
}

/// Installs the handler, keeping the previous action for faults that are not ours.
fn install() {
    // SAFETY: sigaction with a zeroed, then filled, struct; the handler only reads
    // atomics and calls async-signal-safe functions (write, _exit, sigaction).
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigbus as *const () as usize;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
        libc::sigemptyset(&mut action.sa_mask);
        let previous = Box::into_raw(Box::new(std::mem::zeroed::<libc::sigaction>()));
        if libc::sigaction(libc::SIGBUS, &action, previous) == 0 {
            PREVIOUS.store(previous, Ordering::SeqCst);
        } else {
            drop(Box::from_raw(previous));
        }
    }
}

extern "C" fn on_sigbus(
    _signal: libc::c_int,
    info: *mut libc::siginfo_t,
    _context: *mut libc::c_void,
) {
    // SAFETY: the kernel passes a valid siginfo for a SA_SIGINFO handler.
    let address = unsafe { (*info).si_addr() } as usize;
    for slot in &SLOTS_IN_USE {
        let start = slot.start.load(Ordering::SeqCst);
        if start != 0 && (start..slot.end.load(Ordering::SeqCst)).contains(&address) {
            let message = slot.message.load(Ordering::SeqCst);
            let length = slot.message_len.load(Ordering::SeqCst);
            // SAFETY: write and _exit are async-signal-safe; the message lives while the
            // slot matches.
            unsafe {
                libc::write(2, message.cast::<libc::c_void>(), length);
                libc::_exit(1);
            }
        }
    }
    // Not ours: put the previous action back and return; the access faults again and
    // that action handles it.
    let previous = PREVIOUS.load(Ordering::SeqCst);
    // SAFETY: `previous` is null or the action saved in `install`, never freed.
    unsafe {
        if previous.is_null() {
            libc::signal(libc::SIGBUS, libc::SIG_DFL);
        } else {
            libc::sigaction(libc::SIGBUS, previous, std::ptr::null_mut());
        }
    }
}
