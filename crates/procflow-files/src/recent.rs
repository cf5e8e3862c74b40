//! What uploads leave in the page cache: the pages of the most recent uploads, within a
//! budget; an older upload's pages are let go once newer ones pass it.
//!
//! Why let go at all: a stored file is read rarely, and its pages, kept, push the database's
//! out of the cache, which PostgreSQL reads through. Why keep the latest: they are the files
//! read soonest (the uploader's page lists them, the assignee's email links them). And pages
//! let go are what the next upload writes into: on a virtual machine whose free memory goes
//! back to the host, filling pages the kernel has just freed costs a tenth of filling pages it
//! has not touched for a while (10 MiB: about 4 ms against 33 ms on the bench's machine;
//! `docs/performance.md`, "Attachments"): about half of a local upload's time there.

use std::collections::VecDeque;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use rustix::fs::{Advice, fadvise};

/// The uploads counted at most, whatever their size: what the list itself may hold.
const MAX_FILES: usize = 1024;

/// The recent uploads of one local directory, oldest first.
#[derive(Debug)]
pub(crate) struct RecentUploads {
    budget: u64,
    held: Mutex<Held>,
    /// How a file's pages are let go: [`release`]. A test of which files are let go records
    /// them instead, so that it does not depend on what the kernel does with the advice.
    release: fn(&Path),
}

#[derive(Debug, Default)]
struct Held {
    files: VecDeque<(PathBuf, u64)>,
    bytes: u64,
}

impl RecentUploads {
    /// Recent uploads kept in the cache up to `budget` bytes.
    pub(crate) fn new(budget: u64) -> Self {
        Self {
            budget,
            held: Mutex::new(Held::default()),
            release,
        }
    }

    /// The bytes of recent uploads kept.
    #[cfg(test)]
    pub(crate) fn budget(&self) -> u64 {
        self.budget
    }

    /// Counts the file at `path` (`size` bytes, on the disk) as the latest upload, and lets go
    /// of the pages of the oldest beyond the budget, this one included if it alone passes it.
    /// A blocking call (it opens the files it lets go of).
    pub(crate) fn written(&self, path: PathBuf, size: u64) {
        let released = self
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(path, size, self.budget);
        for path in released {
            (self.release)(&path);
        }
    }
}

impl Held {
    /// Counts an upload as the latest and takes out the oldest beyond `budget` (and
    /// [`MAX_FILES`]), this one included if it alone passes it: the files whose pages to let go.
    fn push(&mut self, path: PathBuf, size: u64, budget: u64) -> Vec<PathBuf> {
        self.bytes += size;
        self.files.push_back((path, size));
        let mut released = Vec::new();
        while self.bytes > budget || self.files.len() > MAX_FILES {
            let Some((oldest, size)) = self.files.pop_front() else {
                break;
            };
            self.bytes -= size;
            released.push(oldest);
        }
        released
    }
}

/// Lets go of the cached pages of a file that is on the disk. Advice only: a file removed
/// meanwhile has no pages left to let go, and a page the kernel does not drop (one being read
/// by a download) stays cached.
fn release(path: &Path) {
    if let Ok(file) = File::open(path) {
        let _released = fadvise(&file, 0, None, Advice::DontNeed);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use std::io::IoSliceMut;

    use rustix::io::{Errno, ReadWriteFlags, preadv2};

    use super::*;

    fn names(paths: &[PathBuf]) -> Vec<&str> {
        paths.iter().map(|path| path.to_str().unwrap()).collect()
    }

    #[test]
    fn the_latest_uploads_are_held_within_the_budget_and_the_oldest_let_go() {
        let mut held = Held::default();
        for name in ["f0", "f1", "f2"] {
            assert!(
                held.push(name.into(), 4096, 3 * 4096).is_empty(),
                "within the budget"
            );
        }
        assert_eq!(names(&held.push("f3".into(), 4096, 3 * 4096)), ["f0"]);
        let kept: Vec<&str> = held
            .files
            .iter()
            .map(|(path, _)| path.to_str().unwrap())
            .collect();
        assert_eq!(kept, ["f1", "f2", "f3"]);
        assert_eq!(held.bytes, 3 * 4096);
    }

    #[test]
    fn an_upload_over_the_budget_alone_is_let_go_at_once_with_the_older() {
        let mut held = Held::default();
        assert!(held.push("kept".into(), 4096, 4096).is_empty());
        assert_eq!(
            names(&held.push("big".into(), 2 * 4096, 4096)),
            ["kept", "big"]
        );
        assert!(held.files.is_empty() && held.bytes == 0);
    }

    #[test]
    fn a_file_removed_before_it_is_let_go_is_no_error() {
        let dir = tempfile::tempdir().unwrap();
        let recent = RecentUploads::new(0);
        recent.written(dir.path().join("gone"), 10);
        let held = recent.held.lock().unwrap();
        assert!(held.files.is_empty() && held.bytes == 0);
    }

    #[test]
    fn the_list_holds_a_bounded_number_of_uploads_however_small() {
        let dir = tempfile::tempdir().unwrap();
        let recent = RecentUploads::new(u64::MAX);
        for n in 0..MAX_FILES + 5 {
            recent.written(dir.path().join(format!("f{n}")), 1);
        }
        let held = recent.held.lock().unwrap();
        assert_eq!(held.files.len(), MAX_FILES);
        assert_eq!(held.bytes, MAX_FILES as u64);
        assert_eq!(held.files.front().unwrap().0, dir.path().join("f5"));
    }

    /// A file of `size` bytes on the disk, as an upload leaves it.
    fn durable(dir: &Path, name: &str, size: usize) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, vec![7u8; size]).unwrap();
        File::open(&path).unwrap().sync_all().unwrap();
        path
    }

    /// Whether the file's first page is in the cache: a read that may not wait for the disk
    /// succeeds only then. `None` where the filesystem takes no such read (tmpfs here).
    fn page_cached(path: &Path) -> Option<bool> {
        let file = File::open(path).unwrap();
        let mut buffer = [0u8; 4096];
        match preadv2(
            &file,
            &mut [IoSliceMut::new(&mut buffer)],
            0,
            ReadWriteFlags::NOWAIT,
        ) {
            Ok(read) => Some(read > 0),
            Err(Errno::AGAIN) => Some(false),
            Err(Errno::OPNOTSUPP) => None,
            Err(other) => panic!("preadv2: {other}"),
        }
    }

    fn cached(path: &Path) -> bool {
        page_cached(path).unwrap()
    }

    thread_local! {
        /// The files a test's [`RecentUploads`] let go of, in order.
        static LET_GO: std::cell::RefCell<Vec<PathBuf>> = const { std::cell::RefCell::new(Vec::new()) };
    }

    fn record(path: &Path) {
        LET_GO.with_borrow_mut(|let_go| let_go.push(path.to_path_buf()));
    }

    #[test]
    fn the_uploads_written_let_go_of_the_oldest_beyond_the_budget_and_keep_the_latest() {
        let recent = RecentUploads {
            release: record,
            ..RecentUploads::new(2 * 4096)
        };
        for name in ["f0", "f1", "f2", "f3"] {
            recent.written(name.into(), 4096);
        }
        let let_go = LET_GO.with_borrow(Clone::clone);
        assert_eq!(names(&let_go), ["f0", "f1"]);
    }

    /// Fresh files tried before `release` is taken to advise nothing: now and then, in
    /// spells, the kernel keeps the page of a file just made durable, whatever it is advised.
    const TRIALS: usize = 16;

    #[test]
    fn a_file_released_leaves_the_cache_where_the_kernel_takes_the_advice() {
        let dir = tempfile::tempdir().unwrap();
        // Each trial advises a control file directly, beside the one released, to tell the
        // kernel declining the advice from `release` not giving it.
        let mut controls_let_go = 0;
        for trial in 0..TRIALS {
            let upload = durable(dir.path(), &format!("upload{trial}"), 4096);
            let control = durable(dir.path(), &format!("control{trial}"), 4096);
            if page_cached(&upload).is_none() {
                eprintln!("not checked: {} takes no cache probe", dir.path().display());
                return;
            }
            fadvise(File::open(&control).unwrap(), 0, None, Advice::DontNeed).unwrap();
            release(&upload);
            if !cached(&upload) {
                return;
            }
            if !cached(&control) {
                controls_let_go += 1;
            }
        }
        assert!(
            controls_let_go < TRIALS / 2,
            "{TRIALS} files released kept their pages, while the kernel let go of \
             {controls_let_go} of {TRIALS} advised directly"
        );
        eprintln!(
            "not checked: the kernel kept the pages of {} when advised to drop them",
            dir.path().display()
        );
    }
}
