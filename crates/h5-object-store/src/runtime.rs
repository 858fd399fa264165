//! The Tokio runtime requests block on.

use std::future::Future;
use std::io;
use std::sync::Arc;

/// A runtime to drive requests on: started here or handed in. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Runtime {
    handle: tokio::runtime::Handle,
    /// The runtime when this crate started it (dropped with the last clone).
    _owned: Option<Arc<tokio::runtime::Runtime>>,
}

impl Runtime {
    /// Start a multi-thread runtime of two worker threads.
    pub fn new() -> io::Result<Runtime> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("h5-object-store")
            .enable_all()
            .build()?;
        Ok(Runtime {
            handle: rt.handle().clone(),
            _owned: Some(Arc::new(rt)),
        })
    }

    /// Drive requests on a runtime the caller runs (a multi-thread runtime's handle: a
    /// current-thread runtime only makes progress while its own thread drives it).
    pub fn from_handle(handle: tokio::runtime::Handle) -> Runtime {
        Runtime {
            handle,
            _owned: None,
        }
    }

    /// Run `f` to completion, blocking the calling thread. Inside a runtime (async code),
    /// `f` is driven from a scoped helper thread, since a runtime thread cannot block on
    /// another future itself.
    pub fn block_on<F>(&self, f: F) -> io::Result<F::Output>
    where
        F: Future + Send,
        F::Output: Send,
    {
        if tokio::runtime::Handle::try_current().is_err() {
            return Ok(self.handle.block_on(f));
        }
        std::thread::scope(|s| {
            s.spawn(|| self.handle.block_on(f))
                .join()
                .map_err(|_| io::Error::other("an object store request's thread panicked"))
        })
    }
}
