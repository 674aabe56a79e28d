//! One query at a time per client: [`Busy`] marks a client busy while a query of it runs or
//! streams, [`BusyGuard`] releases it.

use crate::errors::Error;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Marks the client busy while one of its queries is running or streaming: a second query
/// on the same client while a stream is open would wait for it forever.
#[derive(Clone, Debug, Default)]
pub struct Busy(Arc<AtomicBool>);

impl Busy {
    pub fn acquire(&self) -> Result<BusyGuard, Error> {
        self.0
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .map(|_| BusyGuard(Some(self.0.clone())))
            .map_err(|_| Error::Busy)
    }
}

/// Releases the client when dropped (a finished or closed stream, a finished call).
#[derive(Debug)]
pub struct BusyGuard(Option<Arc<AtomicBool>>);

impl BusyGuard {
    pub fn released() -> BusyGuard {
        BusyGuard(None)
    }

    pub fn release(&mut self) {
        if let Some(b) = self.0.take() {
            b.store(false, Ordering::Release);
        }
    }
}

impl Drop for BusyGuard {
    fn drop(&mut self) {
        self.release();
    }
}
