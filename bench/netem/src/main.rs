//! A link between two network namespaces with a rate and a delay, as
//! `tc qdisc add dev X root netem delay D rate R limit N` would make on each side: this
//! machine's kernel has no sch_netem (CONFIG_NET_SCH_NETEM is off and modules cannot be
//! loaded), so W9 (bench/PEERS.md) shapes its link here instead.
//!
//! A TUN device is created in each namespace (the process enters each with setns(2)); every IP
//! packet one side sends is read here, serialized at the link's rate behind the packets before
//! it (netem's `rate`: a packet leaves when the previous one has left plus len × 8 / rate),
//! held for the one-way delay (netem's `delay`: half the round-trip time), and written to the
//! other side's TUN device, in order. A direction holding `limit` packets drops the next one
//! (netem's tail drop; default 1000 packets, netem's default). No offloads: packets are IP
//! packets of at most the devices' MTU (1500), as on an Ethernet link.
//!
//! ```sh
//! chwire-netem --ns-a w9-srv --dev-a w9s --ns-b w9-cli --dev-b w9c --rate-mbit 100 --delay-us 10000
//! ```
//! The devices are created here and vanish when it exits; bench/netem/w9.py configures their
//! addresses. Runs until killed (SIGTERM/SIGINT).

use std::collections::VecDeque;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;
const TUNSETIFF: libc::c_ulong = 0x400454ca;
/// Packets due within this much are written at once instead of sleeping for them.
const EARLY: Duration = Duration::from_micros(30);

#[repr(C)]
struct IfReq {
    name: [u8; 16],
    flags: libc::c_short,
    _pad: [u8; 22],
}

struct Args {
    ns_a: String,
    dev_a: String,
    ns_b: String,
    dev_b: String,
    rate_bps: f64,
    delay: Duration,
    limit: usize,
}

fn die(msg: String) -> ! {
    eprintln!("chwire-netem: {msg}");
    std::process::exit(1)
}

fn parse_args() -> Args {
    let mut a = Args {
        ns_a: String::new(),
        dev_a: String::new(),
        ns_b: String::new(),
        dev_b: String::new(),
        rate_bps: 0.0,
        delay: Duration::ZERO,
        limit: 1000,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let v = it.next().unwrap_or_else(|| die(format!("missing value for {flag}")));
        let num = |v: &str| v.parse::<f64>().unwrap_or_else(|_| die(format!("bad number {v:?} for {flag}")));
        match flag.as_str() {
            "--ns-a" => a.ns_a = v,
            "--dev-a" => a.dev_a = v,
            "--ns-b" => a.ns_b = v,
            "--dev-b" => a.dev_b = v,
            "--rate-mbit" => a.rate_bps = num(&v) * 1e6,
            "--delay-us" => a.delay = Duration::from_secs_f64(num(&v) / 1e6),
            "--limit" => a.limit = num(&v) as usize,
            other => die(format!("unknown argument {other}")),
        }
    }
    if a.ns_a.is_empty() || a.ns_b.is_empty() || a.dev_a.is_empty() || a.dev_b.is_empty() || a.rate_bps <= 0.0 {
        die("usage: chwire-netem --ns-a NS --dev-a DEV --ns-b NS --dev-b DEV --rate-mbit R --delay-us D [--limit N]".into());
    }
    a
}

/// Enters network namespace `ns` (ip netns's /var/run/netns/NS) and creates TUN device `dev` there.
fn tun_in(ns: &str, dev: &str) -> File {
    let nsf = File::open(format!("/var/run/netns/{ns}")).unwrap_or_else(|e| die(format!("namespace {ns}: {e}")));
    // SAFETY: setns on an open namespace file descriptor; the thread switches namespaces.
    if unsafe { libc::setns(nsf.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        die(format!("setns({ns}): {}", std::io::Error::last_os_error()));
    }
    // SAFETY: open(2) of a fixed path; the descriptor is owned by the File below.
    let fd = unsafe { libc::open(c"/dev/net/tun".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if fd < 0 {
        die(format!("/dev/net/tun: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: fd is a fresh descriptor nobody else owns.
    let f = unsafe { File::from_raw_fd(fd) };
    let mut req = IfReq { name: [0; 16], flags: IFF_TUN | IFF_NO_PI, _pad: [0; 22] };
    if dev.len() > 15 {
        die(format!("device name {dev:?} is longer than 15 bytes"));
    }
    req.name[..dev.len()].copy_from_slice(dev.as_bytes());
    // SAFETY: TUNSETIFF reads and writes a struct ifreq, which IfReq lays out (40 bytes).
    if unsafe { libc::ioctl(f.as_raw_fd(), TUNSETIFF, &mut req) } != 0 {
        die(format!("TUNSETIFF {dev}: {}", std::io::Error::last_os_error()));
    }
    f
}

struct Queue {
    q: Mutex<VecDeque<(Instant, Vec<u8>)>>,
    cv: Condvar,
}

/// One direction: packets read from `from`, shaped, written to `to`.
fn direction(mut from: File, mut to: File, rate_bps: f64, delay: Duration, limit: usize, name: &'static str) {
    let queue = Arc::new(Queue { q: Mutex::new(VecDeque::new()), cv: Condvar::new() });
    let qw = queue.clone();
    thread::spawn(move || loop {
        let (due, pkt) = {
            let mut q = qw.q.lock().unwrap();
            loop {
                if let Some(front) = q.pop_front() {
                    break front;
                }
                q = qw.cv.wait(q).unwrap();
            }
        };
        let now = Instant::now();
        if due > now + EARLY {
            thread::sleep(due - now);
        }
        if let Err(e) = to.write_all(&pkt) {
            eprintln!("chwire-netem {name}: write: {e}");
        }
    });
    thread::spawn(move || {
        let mut buf = vec![0u8; 65536];
        let mut free_at = Instant::now(); // when the link has sent the packets before this one
        let (mut dropped, mut sent) = (0u64, 0u64);
        loop {
            let n = match from.read(&mut buf) {
                Ok(n) => n,
                Err(e) => die(format!("{name}: read: {e}")),
            };
            let now = Instant::now();
            let start = free_at.max(now);
            free_at = start + Duration::from_secs_f64(n as f64 * 8.0 / rate_bps);
            let mut q = queue.q.lock().unwrap();
            if q.len() >= limit {
                dropped += 1;
                free_at = start; // a dropped packet does not occupy the link
                if dropped.is_power_of_two() {
                    eprintln!("chwire-netem {name}: {dropped} packets dropped of {sent}");
                }
                continue;
            }
            let was_empty = q.is_empty();
            q.push_back((free_at + delay, buf[..n].to_vec()));
            sent += 1;
            drop(q);
            if was_empty {
                queue.cv.notify_one(); // the writer waits only on an empty queue
            }
        }
    });
}

fn main() {
    let a = parse_args();
    // Timers to the microsecond: the default slack (50 µs) would lengthen a 0.25 ms delay by a fifth.
    // SAFETY: prctl with integer arguments.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong) };
    let fa = tun_in(&a.ns_a, &a.dev_a);
    let fb = tun_in(&a.ns_b, &a.dev_b);
    let (fa2, fb2) = (fa.try_clone().unwrap(), fb.try_clone().unwrap());
    direction(fa, fb2, a.rate_bps, a.delay, a.limit, "a->b");
    direction(fb, fa2, a.rate_bps, a.delay, a.limit, "b->a");
    eprintln!("chwire-netem: {} <-> {} at {} Mbit/s, {} µs each way", a.dev_a, a.dev_b, a.rate_bps / 1e6, a.delay.as_micros());
    loop {
        thread::park();
    }
}
