// Finds libcuzk and tells rustc how to link it. std only: the `pkg-config`
// program is run as a process.
//
// Where libcuzk comes from, first match wins:
//   CUZK_BUILD_DIR=<dir>  a CMake build tree of cuzk: <dir>/src/libcuzk.{a,so}
//                         and the link flags of <dir>/cuzk.pc;
//   otherwise             `pkg-config cuzk` (an installed cuzk: set
//                         PKG_CONFIG_PATH to <prefix>/lib/pkgconfig when the
//                         prefix is not a system one).
// How: CUZK_LINK=static (the default when libcuzk.a is there: the library
// and, for a CUDA build, the CUDA runtime end up inside the program, as with
// the original crate) or CUZK_LINK=dylib (libcuzk.so, found at run time by the
// dynamic loader: LD_LIBRARY_PATH, ldconfig; this crate's own tests get an
// rpath).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fail(msg: &str) -> ! {
    // A panic in a build script is printed with its message; keep it one line.
    eprintln!("error: supraseal-c2 (cuzk): {}", msg);
    panic!("supraseal-c2 (cuzk): {}", msg);
}

struct PkgConfig {
    program: String,
    /// `cuzk`, or the path of a build tree's cuzk.pc.
    package: String,
    /// --define-variable=... arguments.
    defines: Vec<String>,
}

impl PkgConfig {
    fn run(&self, args: &[&str]) -> Result<String, String> {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.defines).args(args).arg(&self.package);
        let out = cmd
            .output()
            .map_err(|e| format!("cannot run {}: {}", self.program, e))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            return Err(format!(
                "`{} {} {}` failed: {}",
                self.program,
                args.join(" "),
                self.package,
                stderr.trim().replace('\n', "; ")
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }
}

/// The source tree a CMake build tree was configured from (its headers).
fn source_dir_of(build: &Path) -> PathBuf {
    let cache = build.join("CMakeCache.txt");
    let text = std::fs::read_to_string(&cache)
        .unwrap_or_else(|e| fail(&format!("{}: {}", cache.display(), e)));
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("cuzk_SOURCE_DIR:STATIC=") {
            return PathBuf::from(v);
        }
    }
    fail(&format!(
        "{}: no cuzk_SOURCE_DIR (not a cuzk build tree)",
        cache.display()
    ))
}

fn main() {
    for v in [
        "CUZK_BUILD_DIR",
        "CUZK_LINK",
        "PKG_CONFIG",
        "PKG_CONFIG_PATH",
        "PKG_CONFIG_LIBDIR",
        "PKG_CONFIG_SYSROOT_DIR",
    ] {
        println!("cargo:rerun-if-env-changed={}", v);
    }
    println!("cargo:rerun-if-changed=build.rs");

    let program = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".to_string());
    let (pc, libdir, cuzk_bin, include) = match env::var_os("CUZK_BUILD_DIR") {
        Some(dir) if !dir.is_empty() => {
            let dir = PathBuf::from(dir);
            let dir = dir
                .canonicalize()
                .unwrap_or_else(|e| fail(&format!("CUZK_BUILD_DIR={}: {}", dir.display(), e)));
            let pc_file = dir.join("cuzk.pc");
            if !pc_file.is_file() {
                fail(&format!(
                    "CUZK_BUILD_DIR={}: no cuzk.pc there (not a configured cuzk build tree)",
                    dir.display()
                ));
            }
            let libdir = dir.join("src");
            println!("cargo:rerun-if-changed={}", pc_file.display());
            let pc = PkgConfig {
                program,
                package: pc_file.display().to_string(),
                defines: vec![format!("--define-variable=libdir={}", libdir.display())],
            };
            let include = source_dir_of(&dir).join("include");
            (pc, libdir, dir.join("cuzk"), include)
        }
        _ => {
            let pc = PkgConfig {
                program,
                package: "cuzk".to_string(),
                defines: Vec::new(),
            };
            let libdir = match pc.run(&["--variable=libdir"]) {
                Ok(d) if !d.is_empty() => PathBuf::from(d),
                Ok(_) => fail("pkg-config gives no libdir for cuzk"),
                Err(e) => fail(&format!(
                    "libcuzk not found ({}). Install cuzk (cmake --install) and set \
                     PKG_CONFIG_PATH=<prefix>/lib/pkgconfig, or set CUZK_BUILD_DIR to a cuzk build tree",
                    e
                )),
            };
            let prefix = pc.run(&["--variable=prefix"]).unwrap_or_default();
            let bin = Path::new(&prefix).join("bin").join("cuzk");
            let include = PathBuf::from(pc.run(&["--variable=includedir"]).unwrap_or_default());
            (pc, libdir, bin, include)
        }
    };

    let a = libdir.join("libcuzk.a");
    let so = libdir.join("libcuzk.so");
    let mode = match env::var("CUZK_LINK").ok().as_deref() {
        Some("static") => "static",
        Some("dylib") => "dylib",
        Some("") | None => {
            if a.is_file() {
                "static"
            } else {
                "dylib"
            }
        }
        Some(other) => fail(&format!("CUZK_LINK={}: expected static or dylib", other)),
    };
    let lib = if mode == "static" { &a } else { &so };
    if !lib.is_file() {
        fail(&format!(
            "{}: not found (CUZK_LINK={}); build libcuzk first",
            lib.display(),
            mode
        ));
    }
    println!("cargo:rerun-if-changed={}", lib.display());

    // Static: libcuzk's own dependencies (Libs.private: cJSON, pthread, m and,
    // in a CUDA build, the static CUDA runtime with dl, rt and libstdc++).
    let flags = if mode == "static" {
        pc.run(&["--static", "--libs"])
    } else {
        pc.run(&["--libs"])
    }
    .unwrap_or_else(|e| fail(&e));

    let mut cuda = false;
    for tok in flags.split_whitespace() {
        if let Some(dir) = tok.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={}", dir);
        } else if let Some(name) = tok.strip_prefix("-l") {
            if name == "cuzk" {
                println!("cargo:rustc-link-lib={}=cuzk", mode);
            } else {
                if name.starts_with("cudart") {
                    cuda = true;
                }
                println!("cargo:rustc-link-lib={}", name);
            }
        } else if tok == "-pthread" {
            println!("cargo:rustc-link-lib=pthread");
        } else {
            println!(
                "cargo:warning=supraseal-c2: ignoring link flag {} from pkg-config",
                tok
            );
        }
    }
    // The search path for libcuzk itself (a build tree's cuzk.pc, or a
    // pkg-config that drops system directories from --libs).
    println!("cargo:rustc-link-search=native={}", libdir.display());
    if mode == "dylib" {
        // Only this package's tests and examples: a dependent's program
        // finds libcuzk.so through the dynamic loader's own search.
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", libdir.display());
    }
    // For dependents' build scripts (DEP_CUZK_*) and for this crate's tests.
    println!("cargo:libdir={}", libdir.display());
    println!("cargo:cuda={}", if cuda { 1 } else { 0 });
    println!(
        "cargo:rustc-env=SUPRASEAL_C2_CUZK_BIN={}",
        cuzk_bin.display()
    );
    println!("cargo:rustc-env=SUPRASEAL_C2_CUZK_LINK={}", mode);
    println!(
        "cargo:rustc-env=SUPRASEAL_C2_CUZK_INCLUDE={}",
        include.display()
    );
    println!("cargo:include={}", include.display());
}
