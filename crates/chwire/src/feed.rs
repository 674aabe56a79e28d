//! [`Feed`]: the items of a blocking source (a host language's iterator of Arrow batches, a
//! C stream) read on a thread of their own into a small channel that an async insert takes
//! from. The source is never pulled on a runtime thread: it may block (a Python generator
//! waiting for the GIL, another connection's result stream, which waits on a runtime itself)
//! and a runtime thread serves other connections too.

use std::thread::JoinHandle;
use tokio::sync::mpsc;

/// A source's items, read ahead by at most `depth` on a thread of their own. Reading stops after
/// the first error item (which is delivered) or once the receiver is dropped (at the source's
/// next item: a cancelled insert stops its reading). A source that panics ends with the error
/// `panicked` makes of the panic's message: never taken for the data's end.
pub struct Feed<T, E> {
    /// The items, in the source's order; `None` once the source ended or failed.
    pub rx: mpsc::Receiver<Result<T, E>>,
    thread: JoinHandle<()>,
}

impl<T: Send + 'static, E: Send + 'static> Feed<T, E> {
    /// Start reading `source`.
    pub fn start<S>(source: S, depth: usize, panicked: fn(String) -> E) -> Feed<T, E>
    where
        S: IntoIterator<Item = Result<T, E>> + Send + 'static,
    {
        let (tx, rx) = mpsc::channel(depth.max(1));
        let thread = std::thread::spawn(move || {
            let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                for item in source {
                    let failed = item.is_err();
                    if tx.blocking_send(item).is_err() || failed {
                        break;
                    }
                }
            }));
            if let Err(p) = read {
                let why = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
                let _ = tx.blocking_send(Err(panicked(format!("the data's source panicked: {}", why.unwrap_or_default()))));
            }
        });
        Feed { rx, thread }
    }
}

impl<T, E> Feed<T, E> {
    /// Split into the receiver and the reading thread (join it once the receiver has seen the
    /// end, or leave it: it ends at the source's next item).
    pub fn into_parts(self) -> (mpsc::Receiver<Result<T, E>>, JoinHandle<()>) {
        (self.rx, self.thread)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn items_in_order_then_the_first_error_ends_the_reading() {
        let items: Vec<Result<u32, String>> = vec![Ok(1), Ok(2), Err("bad".into()), Ok(4)];
        let (mut rx, thread) = Feed::start(items, 1, |m| m).into_parts();
        let mut got = Vec::new();
        while let Some(i) = rx.recv().await {
            got.push(i);
        }
        assert_eq!(got, vec![Ok(1), Ok(2), Err("bad".to_string())]);
        thread.join().unwrap();
    }

    #[tokio::test]
    async fn a_dropped_receiver_stops_an_endless_source() {
        let pulled = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let p = pulled.clone();
        let source = std::iter::from_fn(move || Some(Ok::<u32, ()>(p.fetch_add(1, std::sync::atomic::Ordering::SeqCst))));
        let (mut rx, thread) = Feed::start(source, 2, |_| ()).into_parts();
        assert_eq!(rx.recv().await, Some(Ok(0)));
        drop(rx);
        tokio::task::spawn_blocking(move || thread.join().unwrap()).await.unwrap();
        assert!(pulled.load(std::sync::atomic::Ordering::SeqCst) <= 5);
    }

    #[tokio::test]
    async fn a_panicking_source_ends_with_an_error_not_the_end() {
        let source = (0..3).map(|i| if i < 2 { Ok::<u32, String>(i) } else { panic!("broken reader") });
        let (mut rx, thread) = Feed::start(source, 1, |m| m).into_parts();
        let mut got = Vec::new();
        while let Some(i) = rx.recv().await {
            got.push(i);
        }
        assert_eq!(got[..2], [Ok(0), Ok(1)]);
        assert!(matches!(&got[2], Err(m) if m.contains("broken reader")), "{got:?}");
        thread.join().unwrap();
    }
}
