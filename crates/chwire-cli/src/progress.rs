//! The live progress bar on stderr.

use chwire::Progress;
use indicatif::{HumanBytes, HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// When to show progress (`--progress`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum When {
    /// When stderr is a terminal.
    Auto,
    /// Always: a bar on a terminal, else a line of text at most once a second.
    Always,
    /// Never.
    Never,
}

/// Shown only once a query has run for a moment, so quick queries print nothing extra.
const SHOW_AFTER: Duration = Duration::from_millis(300);

/// `--progress always` with stderr not a terminal (a log file, a pipe): a line of text at
/// most this often, instead of a bar redrawn in place, which only a terminal shows.
const LINE_EVERY: Duration = Duration::from_secs(1);

/// The progress display of one query (shown once it has run for 300 ms).
pub struct Bar {
    bar: Option<ProgressBar>,
    /// Lines of text instead of a bar: when the last one was written, and the latest figures.
    lines: Option<Mutex<(Option<Instant>, String)>>,
    start: Instant,
}

impl Bar {
    /// A display per `when` (hidden until the first update after 300 ms).
    pub fn new(when: When) -> Bar {
        let terminal = std::io::stderr().is_terminal();
        let on = match when {
            When::Auto => terminal,
            When::Always => true,
            When::Never => false,
        };
        if on && !terminal {
            return Bar { bar: None, lines: Some(Mutex::new((None, String::new()))), start: Instant::now() };
        }
        let bar = on.then(|| {
            let b = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
            b.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("template"));
            b
        });
        Bar { bar, lines: None, start: Instant::now() }
    }

    /// Whether a bar is drawn on the terminal now.
    pub fn is_visible(&self) -> bool {
        self.bar.as_ref().is_some_and(|b| !b.is_hidden())
    }

    /// Update from the accumulated progress.
    pub fn update(&self, p: &Progress) {
        let elapsed = self.start.elapsed();
        if let Some(lines) = &self.lines {
            let mut last = lines.lock().unwrap_or_else(|e| e.into_inner());
            last.1 = message(p, elapsed);
            if elapsed >= SHOW_AFTER && last.0.is_none_or(|t| t.elapsed() >= LINE_EVERY) {
                eprintln!("progress: {}", last.1);
                last.0 = Some(Instant::now());
            }
            return;
        }
        let Some(b) = &self.bar else { return };
        if b.is_hidden() {
            if elapsed < SHOW_AFTER {
                return;
            }
            b.set_draw_target(ProgressDrawTarget::stderr_with_hz(10));
        }
        b.set_message(message(p, elapsed));
        b.tick();
    }

    /// Run `f` with the bar cleared from the terminal (so output does not mix with it).
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(b) => b.suspend(f),
            None => f(),
        }
    }

    /// The end: lines of text end with the final figures, or (`final_figures` false: over
    /// HTTP the server stops reporting when the result begins) say that the query is done
    /// without repeating figures that stopped early.
    pub fn finish(&self, final_figures: bool) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
        if let Some(lines) = &self.lines {
            let last = lines.lock().unwrap_or_else(|e| e.into_inner());
            if final_figures && !last.1.is_empty() {
                eprintln!("progress: {} (done)", last.1);
            } else if !last.1.is_empty() {
                let secs = self.start.elapsed().as_secs_f64();
                eprintln!("progress: done in {secs:.1}s (the server reports its progress over HTTP only until the result begins)");
            }
        }
    }
}

/// Rows and bytes read (of the total expected), rows written, the rate and the time so far.
fn message(p: &Progress, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64().max(1e-3);
    let rate = p.read_rows as f64 / secs;
    let mut msg = format!("{} rows, {}", HumanCount(p.read_rows), HumanBytes(p.read_bytes));
    if p.total_rows_to_read > 0 {
        let pct = (p.read_rows as f64 / p.total_rows_to_read as f64 * 100.0).min(100.0);
        msg.push_str(&format!(" of ~{} rows ({pct:.0}%)", HumanCount(p.total_rows_to_read)));
    }
    if p.written_rows > 0 {
        msg.push_str(&format!(", {} rows written", HumanCount(p.written_rows)));
    }
    msg.push_str(&format!(" — {} rows/s, {:.1}s", HumanCount(rate as u64), secs));
    msg
}
