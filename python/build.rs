//! Link the extension with packed relative relocations (`DT_RELR`) where the machine it is
//! built for can load them.
//!
//! The module has about 56,000 relative relocations. As `.rela.dyn` they take 1.4 MB, which
//! the dynamic linker reads at `import chwire`, so they stay in the process's resident memory;
//! packed they take 21 KB (docs/BENCHMARKS.md, the W1 stream's peak RSS). The loader must know
//! `DT_RELR` (glibc 2.36 or later) and the linker must write it (GNU ld 2.38, lld 15, mold), so
//! this is done only for a native build on glibc ≥ 2.36 whose linker accepts the option
//! without a word. `CHWIRE_RELR=0` turns it off (e.g. for a wheel meant for older systems,
//! which should be built on one anyway), `CHWIRE_RELR=1` forces it.

use std::env;
use std::path::PathBuf;
use std::process::Command;

const FLAG: &str = "-Wl,-z,pack-relative-relocs";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CHWIRE_RELR");
    let wanted = match env::var("CHWIRE_RELR").as_deref() {
        Ok("0") => false,
        Ok("1") => true,
        _ => native_glibc_at_least(2, 36) && linker_accepts(FLAG),
    };
    if wanted {
        println!("cargo:rustc-cdylib-link-arg={FLAG}");
    }
}

/// The build runs on the machine it builds for, and its C library is glibc ≥ major.minor.
fn native_glibc_at_least(major: u32, minor: u32) -> bool {
    let (Ok(target), Ok(host)) = (env::var("TARGET"), env::var("HOST")) else { return false };
    if target != host || !target.ends_with("-linux-gnu") {
        return false;
    }
    // `ldd --version` is glibc's own: "ldd (Debian GLIBC 2.36-9+deb12u14) 2.36".
    let Ok(out) = Command::new("ldd").arg("--version").output() else { return false };
    let text = String::from_utf8_lossy(&out.stdout);
    let Some(first) = text.lines().next() else { return false };
    if !first.contains("GLIBC") && !first.contains("GNU libc") {
        return false;
    }
    let Some(version) = first.split_whitespace().last() else { return false };
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(a), Some(b)) => (a, b) >= (major, minor),
        _ => false,
    }
}

/// The C compiler rustc links with (`cc`, or the target's configured linker) links a shared
/// object with `flag` and says nothing (GNU ld before 2.38 only warns about an unknown `-z`).
fn linker_accepts(flag: &str) -> bool {
    let Some(out_dir) = env::var_os("OUT_DIR").map(PathBuf::from) else { return false };
    let target = env::var("TARGET").unwrap_or_default().to_uppercase().replace('-', "_");
    let linker = env::var(format!("CARGO_TARGET_{target}_LINKER")).unwrap_or_else(|_| "cc".into());
    let src = out_dir.join("relr_probe.c");
    if std::fs::write(&src, "int chwire_relr_probe(void) { return 0; }\nint *chwire_relr_p = 0;\n").is_err() {
        return false;
    }
    let out = Command::new(linker).args(["-shared", "-fPIC", "-o"]).arg(out_dir.join("relr_probe.so")).arg(&src).arg(flag).output();
    matches!(out, Ok(o) if o.status.success() && o.stderr.is_empty())
}
