//! Times proofs through the crate's API as bellperson makes them: loads a
//! `.params` with `SRS::try_new` (timed), takes the assignment of a circom
//! circuit and witness as bellperson's synthesis would hand it over
//! (libcuzk's `cuzk_bp_circuit_load`), or with `--porep LG` that of the
//! PoRep-shaped circuit of domain 2^LG and seed S (`cuzk_bp_circuit_porep`;
//! the parameters from `cuzk setup --format bellperson --porep --scale LG
//! --seed S`), and proves `--circuits` copies of it per call with
//! `generate_groth16_proofs` (or Curio's start/finish with `--split`),
//! `--reps` times.
//!
//!   cargo run --release --example bench -- --params P.params --r1cs C.r1cs \
//!       --wtns W.wtns [--circuits N] [--reps K] [--split] [--shared] [--backend cpu|gpu|auto] [--device D]
//!       [--devices N|all]
//!       [--gpu-mem SIZE] [--workers W] [--host-mem SIZE] [--stage-bases auto|yes|no]
//!   cargo run --release --example bench -- --params P.params --porep LG [--seed S] [...]
//!
//! `--devices` sets `SrsOptions::device_count` (default all: every visible
//! GPU, as `SRS::try_new`); `--gpu-mem` and `--workers` set `SrsOptions::device_budget` and
//! `gpu_workers` (the memory plan's device budget and worker count),
//! `--host-mem` and `--stage-bases` its `host_budget` and `gpu_stage_bases`.
//! `--grid full:2,24G:2,8G:1` runs the whole measurement once per entry
//! (device budget, or `full`, and workers) in one process: the parameters
//! loaded again under each entry's plan, the assignment made once; the peaks
//! (VmHWM, and RssAnon sampled every 50 ms) are reset for each entry.
//!
//! Each circuit gets its own copy of the assignment's arrays (as bellperson's
//! partitions have), unless --shared (one copy for all: less host memory).
//!
//! Prints one line per step; every proof is verified by libcuzk before it is
//! returned, and the first one again here. The last line sums up: load time,
//! median per call and per partition, partitions per second, host peak
//! (VmHWM) and anonymous memory (RssAnon) after the proofs, device peak.

use std::os::raw::{c_char, c_int, c_void};
use std::path::PathBuf;
use std::time::Instant;

use supraseal_c2::{Assignment, Backend, SrsOptions, SRS};

#[repr(C)]
struct CuzkError {
    code: c_int,
    msg: [c_char; 512],
}

extern "C" {
    fn cuzk_ctx_create(out: *mut *mut c_void, opts: *const c_void, err: *mut CuzkError) -> c_int;
    fn cuzk_ctx_free(ctx: *mut c_void);
    fn cuzk_bp_circuit_load(
        out: *mut *mut c_void,
        ctx: *mut c_void,
        r1cs: *const c_char,
        wtns: *const c_char,
        err: *mut CuzkError,
    ) -> c_int;
    fn cuzk_bp_circuit_porep(
        out: *mut *mut c_void,
        ctx: *mut c_void,
        log_domain: u32,
        seed: u64,
        err: *mut CuzkError,
    ) -> c_int;
    fn cuzk_bp_circuit_assignment(c: *const c_void) -> *const Assignment<[u64; 4]>;
    fn cuzk_bp_circuit_free(c: *mut c_void);
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Proof([u64; 48]);

fn usage(msg: &str) -> ! {
    eprintln!("Error: {}", msg);
    eprintln!(
        "usage: bench --params P.params (--r1cs C.r1cs --wtns W.wtns | --porep LG [--seed S]) [--circuits N] \
         [--reps K] [--split] [--shared] [--backend cpu|gpu|auto] [--device D] [--devices N|all] [--gpu-mem SIZE] \
         [--workers W] [--grid CAP:W,...]"
    );
    std::process::exit(1);
}

/// Bytes from "123", "8192M", "16G" (binary units); None if malformed.
fn parse_size(v: &str) -> Option<u64> {
    let (num, mult) = match v.chars().last()? {
        'K' | 'k' => (&v[..v.len() - 1], 1u64 << 10),
        'M' | 'm' => (&v[..v.len() - 1], 1u64 << 20),
        'G' | 'g' => (&v[..v.len() - 1], 1u64 << 30),
        _ => (v, 1),
    };
    num.parse::<u64>().ok()?.checked_mul(mult)
}

fn vm_hwm_gib() -> f64 {
    status_gib("VmHWM:")
}

fn status_gib(key: &str) -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    for l in s.lines() {
        if let Some(v) = l.strip_prefix(key) {
            let kb: f64 = v
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .unwrap_or(0.0);
            return kb / (1024.0 * 1024.0);
        }
    }
    0.0
}

/// RssAnon sampled every 50 ms by a thread: the peak since the last
/// reset, in GiB.
struct AnonPeak {
    peak_kb: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl AnonPeak {
    fn start() -> AnonPeak {
        let peak_kb = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let p = peak_kb.clone();
        std::thread::spawn(move || loop {
            let kb = (status_gib("RssAnon:") * 1048576.0) as u64;
            p.fetch_max(kb, std::sync::atomic::Ordering::Relaxed);
            std::thread::sleep(std::time::Duration::from_millis(50));
        });
        AnonPeak { peak_kb }
    }
    fn reset(&self) {
        self.peak_kb.store(0, std::sync::atomic::Ordering::Relaxed);
        // VmHWM back to the current RSS (proc(5): clear_refs 5)
        let _ = std::fs::write("/proc/self/clear_refs", "5");
    }
    fn gib(&self) -> f64 {
        self.peak_kb.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1048576.0
    }
}

/// "full:2,24G:2,8G:1" -> [(0, 2), (24 GiB, 2), (8 GiB, 1)].
fn parse_grid(v: &str) -> Option<Vec<(u64, u32)>> {
    v.split(',')
        .map(|e| {
            let (cap, w) = e.split_once(':')?;
            let cap = if cap == "full" { 0 } else { parse_size(cap)? };
            Some((cap, w.parse().ok()?))
        })
        .collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut grid: Vec<(u64, u32)> = Vec::new();
    let (mut params, mut r1cs, mut wtns) = (None, None, None);
    let (mut porep, mut seed_arg): (Option<u32>, u64) = (None, 1);
    let (mut circuits, mut reps, mut split, mut shared) = (1usize, 3usize, false, false);
    let mut opts = SrsOptions::default();
    while let Some(a) = args.next() {
        let mut val = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{} needs a value", a)))
        };
        match a.as_str() {
            "--params" => params = Some(PathBuf::from(val())),
            "--r1cs" => r1cs = Some(val()),
            "--wtns" => wtns = Some(val()),
            "--porep" => {
                porep = Some(
                    val()
                        .parse()
                        .unwrap_or_else(|_| usage("--porep: a domain log 10..27")),
                )
            }
            "--seed" => seed_arg = val().parse().unwrap_or_else(|_| usage("--seed: a number")),
            "--circuits" => {
                circuits = val()
                    .parse()
                    .unwrap_or_else(|_| usage("--circuits: a number"))
            }
            "--reps" => reps = val().parse().unwrap_or_else(|_| usage("--reps: a number")),
            "--device" => {
                opts.device = val()
                    .parse()
                    .unwrap_or_else(|_| usage("--device: a number"))
            }
            "--devices" => {
                let v = val();
                opts.device_count = if v == "all" {
                    -1
                } else {
                    v.parse()
                        .ok()
                        .filter(|&n| n >= 1)
                        .unwrap_or_else(|| usage("--devices: a number >= 1, or all"))
                }
            }
            "--backend" => {
                opts.backend = match val().as_str() {
                    "cpu" => Backend::Cpu,
                    "gpu" => Backend::Gpu,
                    "auto" => Backend::Auto,
                    _ => usage("--backend: cpu, gpu or auto"),
                }
            }
            "--gpu-mem" => {
                opts.device_budget = parse_size(&val())
                    .unwrap_or_else(|| usage("--gpu-mem: a size (bytes, or with K, M or G)"))
            }
            "--workers" => {
                opts.gpu_workers = val()
                    .parse()
                    .unwrap_or_else(|_| usage("--workers: a number"))
            }
            "--host-mem" => {
                opts.host_budget = parse_size(&val())
                    .unwrap_or_else(|| usage("--host-mem: a size (bytes, or with K, M or G)"))
            }
            "--stage-bases" => {
                opts.gpu_stage_bases = match val().as_str() {
                    "auto" => 0,
                    "yes" => 1,
                    "no" => -1,
                    _ => usage("--stage-bases: auto, yes or no"),
                }
            }
            "--grid" => {
                grid = parse_grid(&val())
                    .unwrap_or_else(|| usage("--grid: CAP:W,... (CAP a size or full)"))
            }
            "--split" => split = true,
            "--shared" => shared = true,
            _ => usage(&format!("unknown argument {}", a)),
        }
    }
    let params = params.unwrap_or_else(|| usage("--params is required"));
    if porep.is_some() == (r1cs.is_some() || wtns.is_some()) {
        usage("give either --r1cs and --wtns or --porep");
    }
    let (r1cs, wtns) = if porep.is_some() {
        (String::new(), String::new())
    } else {
        (
            r1cs.unwrap_or_else(|| usage("--r1cs is required")),
            wtns.unwrap_or_else(|| usage("--wtns is required")),
        )
    };
    if circuits == 0 || reps == 0 {
        usage("--circuits and --reps must be at least 1");
    }

    if grid.is_empty() {
        grid.push((opts.device_budget, opts.gpu_workers));
    }
    let anon = AnonPeak::start();
    let mut made: Option<(*mut c_void, *mut c_void)> = None; // ctx, circuit
    let mut failed = false;
    for &(cap, workers) in &grid {
        anon.reset();
        opts.device_budget = cap;
        opts.gpu_workers = workers;
        let t = Instant::now();
        let srs = SRS::try_new_with(params.clone(), &opts).unwrap_or_else(|e| {
            eprintln!("Error: {}", e);
            std::process::exit(e.code.clamp(1, 125));
        });
        let load = t.elapsed().as_secs_f64();
        let info = srs.info().unwrap();
        println!(
            "load: {:.2} s ({}; 2^{} domain, {} inputs, L {}, A {}, B {}; backend {:?} on {} device(s), {} workers, \
             host {:.2} GiB, device {:.2} GiB; gpu-mem {}, workers {})",
            load,
            params.display(),
            info.log_domain,
            info.n_inputs,
            info.n_l,
            info.n_a,
            info.n_b,
            info.backend,
            info.n_devices,
            info.workers,
            info.host_bytes as f64 / (1u64 << 30) as f64,
            info.device_bytes as f64 / (1u64 << 30) as f64,
            cap_name(cap),
            workers
        );
        // the assignment once, after the first load (bellperson synthesizes after loading)
        let (_, circuit) =
            *made.get_or_insert_with(|| make_assignment(porep, seed_arg, &r1cs, &wtns));
        // SAFETY: valid while `circuit` lives (freed at the end).
        let a = unsafe { &*cuzk_bp_circuit_assignment(circuit) };
        failed |= !prove_all(
            &srs, a, circuits, reps, shared, split, load, cap, workers, &anon,
        );
    }
    if let Some((ctx, circuit)) = made {
        unsafe {
            cuzk_bp_circuit_free(circuit);
            cuzk_ctx_free(ctx);
        }
    }
    if failed {
        std::process::exit(5);
    }
}

fn cap_name(cap: u64) -> String {
    if cap == 0 {
        "full".to_string()
    } else if cap % (1 << 30) == 0 {
        format!("{}G", cap >> 30)
    } else {
        format!("{}M", cap >> 20)
    }
}

/// The assignment of the PoRep-shaped circuit (porep) or of a circom
/// circuit and witness, with its context; exits on an error.
fn make_assignment(
    porep: Option<u32>,
    seed_arg: u64,
    r1cs: &str,
    wtns: &str,
) -> (*mut c_void, *mut c_void) {
    let t = Instant::now();
    let mut err = CuzkError {
        code: 0,
        msg: [0; 512],
    };
    let cs = |s: &str| std::ffi::CString::new(s).unwrap();
    let (cr, cw) = (cs(r1cs), cs(wtns));
    let mut ctx = std::ptr::null_mut();
    let mut circuit = std::ptr::null_mut();
    let st = unsafe {
        let mut st = cuzk_ctx_create(&mut ctx, std::ptr::null(), &mut err);
        if st == 0 {
            st = match porep {
                Some(lg) => cuzk_bp_circuit_porep(&mut circuit, ctx, lg, seed_arg, &mut err),
                None => cuzk_bp_circuit_load(&mut circuit, ctx, cr.as_ptr(), cw.as_ptr(), &mut err),
            };
        }
        st
    };
    if st != 0 {
        let msg = unsafe { std::ffi::CStr::from_ptr(err.msg.as_ptr()) };
        eprintln!("Error: {}", msg.to_string_lossy());
        std::process::exit(st);
    }
    // SAFETY: valid while `circuit` lives.
    let a = unsafe { &*cuzk_bp_circuit_assignment(circuit) };
    println!(
        "assignment: {:.2} s ({} constraints, {} inputs, {} aux)",
        t.elapsed().as_secs_f64(),
        a.abc_size,
        a.inp_assignment_size,
        a.aux_assignment_size
    );
    (ctx, circuit)
}

/// `circuits` partitions a call, `reps` calls, under `srs`; prints the
/// per-call lines and the SUMMARY. False when proof 0 does not verify.
#[allow(clippy::too_many_arguments)]
fn prove_all(
    srs: &SRS,
    a: &Assignment<[u64; 4]>,
    circuits: usize,
    reps: usize,
    shared: bool,
    split: bool,
    load: f64,
    cap: u64,
    workers: u32,
    anon: &AnonPeak,
) -> bool {
    // `circuits` partitions of the same shape, as a PoRep proof's: copies of
    // the arrays (kept alive in `copies`) unless --shared.
    let t = Instant::now();
    let copy = |p: *const [u64; 4], n: usize| unsafe { std::slice::from_raw_parts(p, n) }.to_vec();
    let mut copies: Vec<[Vec<[u64; 4]>; 5]> = Vec::new();
    let provers: Vec<Assignment<[u64; 4]>> = (0..circuits)
        .map(|i| {
            if shared || i == 0 {
                return Assignment { ..*a };
            }
            let v = [
                copy(a.a, a.abc_size),
                copy(a.b, a.abc_size),
                copy(a.c, a.abc_size),
                copy(a.inp_assignment_data, a.inp_assignment_size),
                copy(a.aux_assignment_data, a.aux_assignment_size),
            ];
            let x = Assignment {
                a: v[0].as_ptr(),
                b: v[1].as_ptr(),
                c: v[2].as_ptr(),
                inp_assignment_data: v[3].as_ptr(),
                aux_assignment_data: v[4].as_ptr(),
                ..*a
            };
            copies.push(v);
            x
        })
        .collect();
    if !shared && circuits > 1 {
        println!(
            "copies: {} more assignments in {:.2} s",
            circuits - 1,
            t.elapsed().as_secs_f64()
        );
    }
    let seed = |i: usize, k: u64| [(i as u64 + 1) * 0x9e37_79b9 + k, k, 0, 0];
    let r: Vec<[u64; 4]> = (0..circuits).map(|i| seed(i, 1)).collect();
    let s: Vec<[u64; 4]> = (0..circuits).map(|i| seed(i, 2)).collect();
    let mut proofs = vec![Proof([0; 48]); circuits];
    let mut times = Vec::new();
    for rep in 0..reps {
        let t = Instant::now();
        if split {
            let h = start(&provers, a, &r, &s, srs);
            supraseal_c2::finish_groth16_proof(h, &mut proofs);
        } else {
            supraseal_c2::generate_groth16_proofs(&provers, &r, &s, &mut proofs, srs);
        }
        let dt = t.elapsed().as_secs_f64();
        println!(
            "prove rep {}: {} circuits in {:.3} s ({:.3} s a circuit)",
            rep,
            circuits,
            dt,
            dt / circuits as f64
        );
        times.push(dt);
    }
    times.sort_by(|x, y| x.partial_cmp(y).unwrap());
    let med = times[times.len() / 2];
    let inputs: &[[u64; 4]] = unsafe {
        std::slice::from_raw_parts(a.inp_assignment_data.add(1), a.inp_assignment_size - 1)
    };
    let ok = supraseal_c2::verify_groth16_proof(srs, &proofs[0], inputs).unwrap();
    let info = srs.info().unwrap();
    println!(
        "median: {:.3} s for {} circuits, {:.3} s a circuit ({}); proof 0 verifies: {}; host peak {:.2} GiB; \
         device peak {:.2} GiB",
        med,
        circuits,
        med / circuits as f64,
        if split { "start/finish" } else { "generate_groth16_proofs" },
        ok,
        vm_hwm_gib(),
        info.device_peak as f64 / (1u64 << 30) as f64
    );
    println!(
        "SUMMARY load_s={:.2} circuits={} median_s={:.3} per_circuit_s={:.3} circuits_per_s={:.3} \
         host_peak_gib={:.2} rss_anon_gib={:.2} rss_anon_peak_gib={:.2} device_peak_gib={:.2} mode={} verified={} \
         gpu_mem={} workers={} devices={}",
        load,
        circuits,
        med,
        med / circuits as f64,
        circuits as f64 / med,
        vm_hwm_gib(),
        status_gib("RssAnon:"),
        anon.gib(),
        info.device_peak as f64 / (1u64 << 30) as f64,
        if split { "start_finish" } else { "generate" },
        ok,
        cap_name(cap),
        workers,
        info.n_devices
    );
    ok
}

fn start(
    provers: &[Assignment<[u64; 4]>],
    a: &Assignment<[u64; 4]>,
    r: &[[u64; 4]],
    s: &[[u64; 4]],
    srs: &SRS,
) -> *mut c_void {
    let n = provers.len();
    let p =
        |f: fn(&Assignment<[u64; 4]>) -> *const [u64; 4]| provers.iter().map(f).collect::<Vec<_>>();
    let words = |ptr: *const usize, bits: usize| unsafe {
        std::slice::from_raw_parts(ptr, (bits + 63) / 64)
    };
    supraseal_c2::start_groth16_proof(
        &p(|x| x.a),
        &p(|x| x.b),
        &p(|x| x.c),
        a.abc_size,
        &p(|x| x.inp_assignment_data),
        &p(|x| x.aux_assignment_data),
        a.inp_assignment_size,
        a.aux_assignment_size,
        words(a.a_aux_density, a.a_aux_bit_len),
        words(a.b_inp_density, a.b_inp_bit_len),
        words(a.b_aux_density, a.b_aux_bit_len),
        a.a_aux_popcount,
        a.b_inp_popcount,
        a.b_aux_popcount,
        n,
        r,
        s,
        srs,
        std::ptr::null_mut(),
        -1,
    )
}
