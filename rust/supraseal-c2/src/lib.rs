//! `supraseal-c2` on libcuzk: the Rust API of the crate bellperson's feature
//! `cuda-supraseal` calls for every Groth16 proof (supraseal-c2 0.1.2, plus
//! the additions of Curio's fork), with the proofs made by libcuzk's
//! bellperson mode (`include/cuzk/bellperson.h`).
//!
//! The API is generic like the original's: the scalar type `S` is blstrs'
//! `Scalar` (a 32-byte `blst_fr` in Montgomery form), the proof type `PR`
//! bellperson's `Proof<Bls12>` (three blst affine points, 384 bytes), the
//! density word `D` a `usize`. Nothing checks those types across the
//! language boundary, so their sizes are checked when a function is
//! instantiated: a wrong type is a compile error. These compile:
//!
//! ```no_run
//! #[repr(C)]
//! struct Proof([u64; 48]); // three affine points: 96 + 192 + 96 bytes
//! let srs = supraseal_c2::SRS::default();
//! let mut proofs: Vec<Proof> = Vec::new();
//! supraseal_c2::generate_groth16_proofs::<[u64; 4], Proof>(&[], &[], &[], &mut proofs, &srs);
//! ```
//!
//! and these do not (a 192-byte proof; a 24-byte scalar):
//!
//! ```compile_fail
//! let srs = supraseal_c2::SRS::default();
//! let mut proofs: Vec<[u8; 192]> = Vec::new();
//! supraseal_c2::generate_groth16_proofs::<[u64; 4], [u8; 192]>(&[], &[], &[], &mut proofs, &srs);
//! ```
//!
//! ```compile_fail
//! let srs = supraseal_c2::SRS::default();
//! let mut proofs: Vec<[u64; 48]> = Vec::new();
//! supraseal_c2::generate_groth16_proofs::<[u64; 3], [u64; 48]>(&[], &[], &[], &mut proofs, &srs);
//! ```
//!
//! Errors keep the original's shape (`SRS::try_new` returns one, proving
//! panics, as bellperson expects) but carry libcuzk's one-line message,
//! e.g. `x.params: section B_G2 has 74 points (14208 bytes) but only 14108
//! bytes are left` or `circuit 0: aux_size 75, x.params has 76 L points`.
//! Every proof is verified against the parameters' verifying
//! key before it is returned: an assignment that does not satisfy the
//! circuit is an error, never a bad proof.

#![allow(clippy::too_many_arguments)]

use std::ffi::{CStr, CString};
use std::fmt;
use std::marker::PhantomData;
use std::mem::size_of;
use std::os::raw::{c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

mod ffi;

/// Bytes of a scalar (blstrs `Scalar`, `blst_fr`).
pub const SCALAR_BYTES: usize = 32;
/// Bytes of a proof in memory (bellperson `Proof<Bls12>`: G1, G2, G1 affine).
pub const PROOF_BYTES: usize = 384;

/// Size checks of the caller's types, evaluated when a generic function is
/// instantiated (a failing one stops the build with its message).
struct Layout<S, D, PR>(PhantomData<(S, D, PR)>);

impl<S, D, PR> Layout<S, D, PR> {
    const SCALAR: () = assert!(
        size_of::<S>() == SCALAR_BYTES,
        "supraseal-c2 (cuzk): the scalar type must be 32 bytes (blstrs Scalar, blst_fr)"
    );
    const DENSITY: () = assert!(
        size_of::<D>() == 8,
        "supraseal-c2 (cuzk): only 64-bit elements in bit vectors are supported"
    );
    const PROOF: () = assert!(
        size_of::<PR>() == PROOF_BYTES,
        "supraseal-c2 (cuzk): the proof type must be 384 bytes (bellperson Proof<Bls12>)"
    );
}

// The layout of Assignment does not depend on the scalar type.
const _: () = assert!(size_of::<Assignment<[u64; 4]>>() == 136);
const _: () = assert!(size_of::<Assignment<u8>>() == 136);

// ---- Errors ------------------------------------------------------------------

/// An error from libcuzk: its status code (`cuzk_status`, the exit codes of
/// the `cuzk` CLI) and its one-line message naming the file or the circuit.
pub struct Error {
    pub code: i32,
    msg: String,
}

impl Error {
    fn from_c(status: ffi::cuzk_status, err: &ffi::cuzk_error) -> Self {
        // SAFETY: a copy of msg whose last byte is NUL, so the string ends
        // inside the buffer even if libcuzk wrote none.
        let mut buf = err.msg;
        buf[ffi::CUZK_ERROR_MSG_MAX - 1] = 0;
        let msg = unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        let msg = if msg.is_empty() {
            // SAFETY: cuzk_status_name returns a static string for any value.
            let name = unsafe { CStr::from_ptr(ffi::cuzk_status_name(status)) };
            format!("cuzk: {} (status {})", name.to_string_lossy(), status)
        } else {
            msg
        };
        Error { code: status, msg }
    }

    fn new(code: ffi::cuzk_status, msg: String) -> Self {
        Error { code, msg }
    }

    /// The one-line message.
    pub fn message(&self) -> &str {
        &self.msg
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.msg)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Error {{ code: {}, msg: {:?} }}", self.code, self.msg)
    }
}

impl std::error::Error for Error {}

impl From<&Error> for String {
    fn from(e: &Error) -> String {
        e.msg.clone()
    }
}

impl From<Error> for String {
    fn from(e: Error) -> String {
        e.msg
    }
}

fn check(status: ffi::cuzk_status, err: &ffi::cuzk_error) -> Result<(), Error> {
    if status == ffi::CUZK_OK {
        Ok(())
    } else {
        Err(Error::from_c(status, err))
    }
}

// ---- Contexts on one shared pool ----------------------------------------------

struct PoolPtr(*mut ffi::cuzk_pool);
// SAFETY: a cuzk_pool serves contexts on any thread (cuzk.h: "One pool may
// serve several contexts used at once from different threads").
unsafe impl Send for PoolPtr {}

/// The process's thread pool (one thread per CPU), started on first use and
/// kept for the life of the process; every context borrows it, so proofs
/// running at once share the CPUs instead of each starting its own threads.
static POOL: Mutex<Option<PoolPtr>> = Mutex::new(None);

fn shared_pool() -> Result<*mut ffi::cuzk_pool, Error> {
    let mut g = lock(&POOL);
    if let Some(p) = g.as_ref() {
        return Ok(p.0);
    }
    // SAFETY: plain constructor; NULL on failure.
    let p = unsafe { ffi::cuzk_pool_create(0) };
    if p.is_null() {
        return Err(Error::new(
            ffi::CUZK_ERR_NOMEM,
            "cuzk: cannot start the thread pool".to_string(),
        ));
    }
    *g = Some(PoolPtr(p));
    Ok(p)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere while holding the lock leaves nothing half-updated here.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A libcuzk context: used by one operation at a time.
struct Ctx(*mut ffi::cuzk_ctx);

// SAFETY: a context may move between threads; it is used by one at a time.
unsafe impl Send for Ctx {}

impl Ctx {
    fn new() -> Result<Ctx, Error> {
        let opts = ffi::cuzk_ctx_opts {
            threads: 0,
            pool: shared_pool()?,
            progress: None,
            timing: None,
            cancelled: None,
            user: std::ptr::null_mut(),
            span: None,
        };
        let mut ctx = std::ptr::null_mut();
        let mut err = ffi::cuzk_error::new();
        // SAFETY: valid out-pointer, options and error struct.
        let st = unsafe { ffi::cuzk_ctx_create(&mut ctx, &opts, &mut err) };
        check(st, &err)?;
        Ok(Ctx(ctx))
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: created by cuzk_ctx_create, freed once.
        unsafe { ffi::cuzk_ctx_free(self.0) };
    }
}

// ---- Parameters (SRS) ---------------------------------------------------------

/// Which libcuzk backend proves with an `SRS` (see `SrsOptions`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The multithreaded CPU prover.
    Cpu,
    /// A CUDA device (an error where libcuzk was built without CUDA).
    Gpu,
    /// The GPU when one is usable, else the CPU.
    Auto,
}

/// How `SRS::try_new_with` loads parameters. `SRS::try_new` uses the
/// default: `Backend::Auto` on every visible CUDA device (as the original
/// spreads a call's circuits over every GPU), libcuzk's memory plan for each
/// device, parameters unchecked as filecoin-proofs maps them (the verifying
/// key checked, section points decoded, which rejects points off the curve).
#[derive(Clone, Debug)]
pub struct SrsOptions {
    pub backend: Backend,
    /// CUDA device index (the first of `device_count`).
    pub device: i32,
    /// GPU: the devices `device .. device + device_count - 1` (-1: every
    /// device from `device` on; 0 or 1: `device` alone). Each holds the
    /// parameters with its own memory plan; a call's circuits go to the
    /// next free worker of any of them.
    pub device_count: i32,
    /// Device bytes the parameters and their proofs may use (0: free memory
    /// minus a margin).
    pub device_budget: u64,
    /// Proofs that may hold device memory at once (0: libcuzk's default, 2).
    pub gpu_workers: u32,
    /// Check every point (subgroup, identity) as bellperson's checked read
    /// does; slow for large files.
    pub checked: bool,
    /// Host bytes (anonymous + page-locked) the parameters and their proofs
    /// may use, a cap on the available memory (0: the available memory).
    pub host_budget: u64,
    /// Streamed MSM bases: 1 copied through page-locked chunks at each
    /// proof, -1 page-locked whole in the mapping at load, 0 the memory
    /// plan's choice (locked unless that does not fit the host).
    pub gpu_stage_bases: i32,
}

impl Default for SrsOptions {
    fn default() -> Self {
        SrsOptions {
            backend: Backend::Auto,
            device: 0,
            device_count: -1,
            device_budget: 0,
            gpu_workers: 0,
            checked: false,
            host_budget: 0,
            gpu_stage_bases: 0,
        }
    }
}

struct Params {
    ptr: *mut ffi::cuzk_bp_srs,
    path: String,
    /// GPU: the CUDA devices the parameters are on (first, count).
    devices: (i32, u32),
}

// SAFETY: cuzk_bp_srs is immutable after load and may be used by several
// threads at once, each with its own context (bellperson.h).
unsafe impl Send for Params {}
unsafe impl Sync for Params {}

impl Drop for Params {
    fn drop(&mut self) {
        // SAFETY: loaded by cuzk_bp_srs_load; the last reference is gone,
        // so no proof runs or is pending with it (pending proofs hold one).
        unsafe { ffi::cuzk_bp_srs_free(self.ptr) };
    }
}

impl Params {
    fn load(path: &str, opts: &SrsOptions) -> Result<Params, Error> {
        let cpath = CString::new(path).map_err(|_| {
            Error::new(
                ffi::CUZK_ERR_USAGE,
                format!("{}: the path contains a NUL byte", path),
            )
        })?;
        let copts = ffi::cuzk_bp_srs_opts {
            backend: match opts.backend {
                Backend::Cpu => ffi::CUZK_BACKEND_CPU,
                Backend::Gpu => ffi::CUZK_BACKEND_GPU,
                Backend::Auto => ffi::CUZK_BACKEND_AUTO,
            },
            device: opts.device,
            device_budget: opts.device_budget,
            gpu_workers: opts.gpu_workers,
            checked: opts.checked as c_int,
            host_budget: opts.host_budget,
            gpu_stage_bases: opts.gpu_stage_bases as c_int,
            device_count: opts.device_count as c_int,
        };
        let ctx = Ctx::new()?;
        let mut p = std::ptr::null_mut();
        let mut err = ffi::cuzk_error::new();
        // SAFETY: valid pointers; ctx is used by this call only.
        let st = unsafe { ffi::cuzk_bp_srs_load(&mut p, ctx.0, cpath.as_ptr(), &copts, &mut err) };
        check(st, &err)?;
        let mut i = ffi::cuzk_bp_srs_info::default();
        // SAFETY: loaded just now, valid out-pointer.
        unsafe { ffi::cuzk_bp_srs_get_info(p, &mut i) };
        let gpu = i.backend == ffi::CUZK_BACKEND_GPU;
        Ok(Params {
            ptr: p,
            path: path.to_string(),
            devices: (opts.device, if gpu { i.n_devices } else { 0 }),
        })
    }
}

/// Parameters loaded from a bellperson `.params` file, ready to prove with.
/// Cheap to clone (the clones share the loaded parameters, which are freed
/// with the last one); usable from several threads at once.
#[derive(Default)]
pub struct SRS {
    inner: Option<Arc<Params>>,
}

/// The parameters `SRS::try_new(path, true)` keeps, most recently used
/// first; at most 4, as the original's cache.
static CACHE: Mutex<Vec<(String, SRS)>> = Mutex::new(Vec::new());
const CACHE_ENTRIES: usize = 4;

fn path_str(path: &Path) -> Result<&str, Error> {
    path.to_str().ok_or_else(|| {
        Error::new(
            ffi::CUZK_ERR_USAGE,
            format!("{}: the path is not valid UTF-8", path.display()),
        )
    })
}

impl SRS {
    /// Loads the parameter file. With `cache`, the parameters are also kept
    /// in a process-wide cache (the 4 most recently used paths) and a later
    /// `try_new(same path, true)` returns them without loading again.
    pub fn try_new(srs_path: PathBuf, cache: bool) -> Result<Self, Error> {
        let path = path_str(&srs_path)?;
        if !cache {
            return Self::try_new_with(srs_path.clone(), &SrsOptions::default());
        }
        // Loading under the lock: one load per path even when threads race.
        let mut c = lock(&CACHE);
        if let Some(i) = c.iter().position(|(k, _)| k == path) {
            let e = c.remove(i);
            let srs = e.1.clone();
            c.insert(0, e);
            return Ok(srs);
        }
        let srs = Self::try_new_with(srs_path.clone(), &SrsOptions::default())?;
        if c.len() >= CACHE_ENTRIES {
            c.pop();
        }
        c.insert(0, (path.to_string(), srs.clone()));
        Ok(srs)
    }

    /// Loads the parameter file with explicit options (not cached).
    pub fn try_new_with(srs_path: PathBuf, opts: &SrsOptions) -> Result<Self, Error> {
        let path = path_str(&srs_path)?;
        Ok(SRS {
            inner: Some(Arc::new(Params::load(path, opts)?)),
        })
    }

    /// Drops this file's parameters from the cache of `try_new(_, true)`;
    /// they are freed once no `SRS` refers to them (as the original).
    pub fn evict(&self) {
        if let Some(p) = &self.inner {
            lock(&CACHE).retain(|(k, _)| *k != p.path);
        }
    }

    /// The file the parameters were loaded from (None for `SRS::default()`).
    pub fn path(&self) -> Option<&str> {
        self.inner.as_ref().map(|p| p.path.as_str())
    }

    /// Whether two `SRS` share the same loaded parameters.
    pub fn same_as(&self, other: &SRS) -> bool {
        match (&self.inner, &other.inner) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    fn params(&self) -> Result<&Arc<Params>, Error> {
        self.inner.as_ref().ok_or_else(|| {
            Error::new(
                ffi::CUZK_ERR_USAGE,
                "supraseal-c2 (cuzk): SRS not loaded (SRS::default())".to_string(),
            )
        })
    }
}

impl Clone for SRS {
    fn clone(&self) -> Self {
        SRS {
            inner: self.inner.clone(),
        }
    }
}

// ---- Assignments and proving ---------------------------------------------------

/// One circuit's assignment as bellperson's synthesis leaves it (`#[repr(C)]`,
/// 136 bytes; libcuzk's `cuzk_bp_assignment`): per-constraint evaluations
/// of A, B, C (input constraints included), the input and aux assignments
/// (Montgomery scalars) and the density bitmaps (u64 words, least
/// significant bit first) of aux variables in A, inputs in B, aux in B.
#[repr(C)]
pub struct Assignment<Scalar> {
    // Density of queries
    pub a_aux_density: *const usize,
    pub a_aux_bit_len: usize,
    pub a_aux_popcount: usize,

    pub b_inp_density: *const usize,
    pub b_inp_bit_len: usize,
    pub b_inp_popcount: usize,

    pub b_aux_density: *const usize,
    pub b_aux_bit_len: usize,
    pub b_aux_popcount: usize,

    // Evaluations of A, B, C polynomials
    pub a: *const Scalar,
    pub b: *const Scalar,
    pub c: *const Scalar,
    pub abc_size: usize,

    // Assignments of variables
    pub inp_assignment_data: *const Scalar,
    pub inp_assignment_size: usize,

    pub aux_assignment_data: *const Scalar,
    pub aux_assignment_size: usize,
}

/// The `gpu_mtx` of Curio's API: an opaque mutex from `alloc_gpu_mutex`.
type GpuMutex = Mutex<()>;

fn gpu_lock<'a>(gpu_mtx: *mut c_void) -> Option<MutexGuard<'a, ()>> {
    if gpu_mtx.is_null() {
        None
    } else {
        // SAFETY: the caller passes a pointer from alloc_gpu_mutex that is not freed.
        let m: &'a GpuMutex = unsafe { &*(gpu_mtx as *const GpuMutex) };
        Some(lock(m))
    }
}

/// Proves n circuits; every pointer is the caller's, sizes checked by the caller.
/// The call's options: Curio's `gpu_index` (a CUDA device, -1 any) pins the
/// circuits to that device where the parameters are on it; any other value
/// proves on the parameters' devices.
fn prove_opts(params: &Params, gpu_index: i32) -> ffi::cuzk_bp_prove_opts {
    let (first, count) = params.devices;
    let on = gpu_index >= first && ((gpu_index - first) as u32) < count;
    ffi::cuzk_bp_prove_opts {
        no_verify: 0,
        pin_device: on as c_int,
        device: if on { gpu_index } else { 0 },
    }
}

fn prove_raw(
    provers: *const c_void,
    n: usize,
    r_s: *const c_void,
    s_s: *const c_void,
    proofs: *mut c_void,
    srs: &SRS,
    gpu_index: i32,
) -> Result<(), Error> {
    let params = srs.params()?;
    if n == 0 {
        return Ok(());
    }
    let ctx = Ctx::new()?;
    let opts = prove_opts(params, gpu_index);
    let mut err = ffi::cuzk_error::new();
    // SAFETY: provers, r_s, s_s hold n elements of the checked sizes, proofs
    // has room for n; ctx is this call's own.
    let st = unsafe {
        ffi::cuzk_bp_prove(
            ctx.0, params.ptr, provers, n, r_s, s_s, proofs, &opts, &mut err,
        )
    };
    check(st, &err)
}

fn assignments<S, D>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
) -> Vec<Assignment<S>> {
    assert_eq!(ntt_a_scalars.len(), num_circuits);
    assert_eq!(ntt_b_scalars.len(), num_circuits);
    assert_eq!(ntt_c_scalars.len(), num_circuits);
    assert_eq!(input_assignments.len(), num_circuits);
    assert_eq!(aux_assignments.len(), num_circuits);
    let bits = size_of::<D>() * 8;
    assert!(
        a_aux_density_bv.len() * bits >= aux_assignments_size,
        "a_aux_density shorter than aux_size"
    );
    assert!(
        b_g1_aux_density_bv.len() * bits >= aux_assignments_size,
        "b_aux_density shorter than aux_size"
    );
    assert!(
        b_g1_input_density_bv.len() * bits >= input_assignments_size,
        "b_inp_density shorter than inp_size"
    );
    (0..num_circuits)
        .map(|c| Assignment::<S> {
            a_aux_density: a_aux_density_bv.as_ptr() as *const usize,
            a_aux_bit_len: aux_assignments_size,
            a_aux_popcount: a_aux_total_density,
            b_inp_density: b_g1_input_density_bv.as_ptr() as *const usize,
            b_inp_bit_len: input_assignments_size,
            b_inp_popcount: b_g1_input_total_density,
            b_aux_density: b_g1_aux_density_bv.as_ptr() as *const usize,
            b_aux_bit_len: aux_assignments_size,
            b_aux_popcount: b_g1_aux_total_density,
            a: ntt_a_scalars[c],
            b: ntt_b_scalars[c],
            c: ntt_c_scalars[c],
            abc_size: ntt_scalars_actual_size,
            inp_assignment_data: input_assignments[c],
            inp_assignment_size: input_assignments_size,
            aux_assignment_data: aux_assignments[c],
            aux_assignment_size: aux_assignments_size,
        })
        .collect()
}

/// Proves `provers.len()` circuits with blinding factors `r_s[i]`, `s_s[i]`
/// (zero for none), writing `proofs[i]` (bellperson's `Proof<Bls12>`).
/// Panics with libcuzk's one-line message on any error (as the original).
pub fn generate_groth16_proofs<S, PR>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) {
    let () = Layout::<S, u64, PR>::SCALAR;
    let () = Layout::<S, u64, PR>::PROOF;
    let n = provers.len();
    assert_eq!(r_s.len(), n);
    assert_eq!(s_s.len(), n);
    assert_eq!(proofs.len(), n);
    if let Err(e) = prove_raw(
        provers.as_ptr() as *const c_void,
        n,
        r_s.as_ptr() as *const c_void,
        s_s.as_ptr() as *const c_void,
        proofs.as_mut_ptr() as *mut c_void,
        srs,
        -1,
    ) {
        panic!("{}", e);
    }
}

/// `generate_groth16_proof` in both forms (the fork's adds `gpu_mtx` and
/// `gpu_index`): one argument list and one body, written once.
macro_rules! generate_groth16_proof_fn {
    ($(#[$m:meta])* ($($extra:ident: $ty:ty),*) => ($mtx:expr, $idx:expr)) => {
        $(#[$m])*
        pub fn generate_groth16_proof<S, D, PR>(
            ntt_a_scalars: &[*const S],
            ntt_b_scalars: &[*const S],
            ntt_c_scalars: &[*const S],
            ntt_scalars_actual_size: usize,
            input_assignments: &[*const S],
            aux_assignments: &[*const S],
            input_assignments_size: usize,
            aux_assignments_size: usize,
            a_aux_density_bv: &[D],
            b_g1_input_density_bv: &[D],
            b_g1_aux_density_bv: &[D],
            a_aux_total_density: usize,
            b_g1_input_total_density: usize,
            b_g1_aux_total_density: usize,
            num_circuits: usize,
            r_s: &[S],
            s_s: &[S],
            proofs: &mut [PR],
            srs: &SRS,
            $($extra: $ty),*
        ) {
            let gpu_mtx: *mut c_void = $mtx;
            let gpu_index: i32 = $idx;
            let () = Layout::<S, D, PR>::SCALAR;
            let () = Layout::<S, D, PR>::DENSITY;
            let () = Layout::<S, D, PR>::PROOF;
            assert_eq!(r_s.len(), num_circuits);
            assert_eq!(s_s.len(), num_circuits);
            assert_eq!(proofs.len(), num_circuits);
            let provers = assignments(
                ntt_a_scalars,
                ntt_b_scalars,
                ntt_c_scalars,
                ntt_scalars_actual_size,
                input_assignments,
                aux_assignments,
                input_assignments_size,
                aux_assignments_size,
                a_aux_density_bv,
                b_g1_input_density_bv,
                b_g1_aux_density_bv,
                a_aux_total_density,
                b_g1_input_total_density,
                b_g1_aux_total_density,
                num_circuits,
            );
            let _guard = gpu_lock(gpu_mtx);
            if let Err(e) = prove_raw(
                provers.as_ptr() as *const c_void,
                num_circuits,
                r_s.as_ptr() as *const c_void,
                s_s.as_ptr() as *const c_void,
                proofs.as_mut_ptr() as *mut c_void,
                srs,
                gpu_index,
            ) {
                panic!("{}", e);
            }
        }
    };
}

generate_groth16_proof_fn! {
    /// The same from the parts of `num_circuits` equally shaped circuits (one
    /// set of density bitmaps for all). Curio's fork (feature `curio`) adds
    /// `gpu_mtx`, `gpu_index`: see `generate_groth16_proof` there.
    #[cfg(not(feature = "curio"))]
    () => (std::ptr::null_mut(), -1)
}

generate_groth16_proof_fn! {
    /// Curio's form: as above, plus `gpu_mtx` (NULL or a mutex from
    /// `alloc_gpu_mutex`, held for the duration of the call: callers that share
    /// one run their proofs one at a time) and `gpu_index` (-1: the circuits
    /// go to every device the `SRS` is on; a CUDA device it is on: that one
    /// alone, as the fork pins them; any other value: as -1).
    #[cfg(feature = "curio")]
    (gpu_mtx: *mut c_void, gpu_index: i32) => (gpu_mtx, gpu_index)
}

// ---- Curio's fork: split proving and GPU mutexes ----------------------------

/// Proofs started by `start_groth16_proof`, waiting for
/// `finish_groth16_proof`: libcuzk's pending proof, the context it proves
/// with and the parameters it proves against (both must outlive it).
struct Pending {
    handle: *mut ffi::cuzk_bp_pending,
    n: usize,
    _ctx: Ctx,
    _params: Arc<Params>,
}

impl Pending {
    /// Waits for the proofs; `out` has room for `n`.
    fn finish(mut self, out: *mut c_void) -> Result<(), Error> {
        let mut err = ffi::cuzk_error::new();
        let h = std::mem::replace(&mut self.handle, std::ptr::null_mut());
        // SAFETY: a handle from cuzk_bp_prove_start, consumed here once;
        // out has room for n proofs.
        let st = unsafe { ffi::cuzk_bp_prove_finish(h, out, &mut err) };
        check(st, &err)
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if !self.handle.is_null() {
            // SAFETY: not finished: dropped once (waits for the proofs).
            unsafe { ffi::cuzk_bp_prove_drop(self.handle) };
        }
    }
}

/// Curio's split API. Curio's bellperson frees the A, B, C arrays as soon as
/// this returns and keeps the densities and the input and aux assignments
/// until finish: libcuzk's `cuzk_bp_prove_start` returns once every
/// circuit's A, B, C are read (uploaded to the GPU through a worker's
/// page-locked staging chunks, or scattered by the CPU), so the proofs of the last circuits run
/// on while the caller goes on; `finish_groth16_proof` waits for them.
///
/// Arguments as `generate_groth16_proof`; `gpu_mtx` is held until this
/// returns (the device work still running then is scheduled by libcuzk's
/// worker slots). Panics with libcuzk's one-line message on an error found
/// here (the checks of the assignments against the parameters); an error
/// of the proofs themselves panics in `finish_groth16_proof`.
pub fn start_groth16_proof<S, D>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    srs: &SRS,
    gpu_mtx: *mut c_void,
    gpu_index: i32,
) -> *mut c_void {
    let () = Layout::<S, D, [u8; PROOF_BYTES]>::SCALAR;
    let () = Layout::<S, D, [u8; PROOF_BYTES]>::DENSITY;
    assert_eq!(r_s.len(), num_circuits);
    assert_eq!(s_s.len(), num_circuits);
    let provers = assignments(
        ntt_a_scalars,
        ntt_b_scalars,
        ntt_c_scalars,
        ntt_scalars_actual_size,
        input_assignments,
        aux_assignments,
        input_assignments_size,
        aux_assignments_size,
        a_aux_density_bv,
        b_g1_input_density_bv,
        b_g1_aux_density_bv,
        a_aux_total_density,
        b_g1_input_total_density,
        b_g1_aux_total_density,
        num_circuits,
    );
    let _guard = gpu_lock(gpu_mtx);
    match start_raw(&provers, r_s, s_s, srs, gpu_index) {
        Ok(p) => Box::into_raw(Box::new(p)) as *mut c_void,
        Err(e) => panic!("{}", e),
    }
}

/// cuzk_bp_prove_start over the checked assignments (it copies the array of
/// them, and r_s, s_s).
fn start_raw<S>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    srs: &SRS,
    gpu_index: i32,
) -> Result<Pending, Error> {
    let params = srs.params()?.clone();
    let ctx = Ctx::new()?;
    let opts = prove_opts(&params, gpu_index);
    let mut h = std::ptr::null_mut();
    let mut err = ffi::cuzk_error::new();
    // SAFETY: provers, r_s, s_s hold n elements of the checked sizes; ctx
    // and params are kept by the Pending until the proofs end.
    let st = unsafe {
        ffi::cuzk_bp_prove_start(
            ctx.0,
            params.ptr,
            provers.as_ptr() as *const c_void,
            provers.len(),
            r_s.as_ptr() as *const c_void,
            s_s.as_ptr() as *const c_void,
            &opts,
            &mut h,
            &mut err,
        )
    };
    check(st, &err)?;
    Ok(Pending {
        handle: h,
        n: provers.len(),
        _ctx: ctx,
        _params: params,
    })
}

/// Writes the proofs of `handle` (from `start_groth16_proof`) to `proofs`
/// (exactly as many as were started), waiting for them. Consumes the
/// handle, also when it panics (a proof's error panics here).
pub fn finish_groth16_proof<PR>(handle: *mut c_void, proofs: &mut [PR]) {
    let () = Layout::<[u8; SCALAR_BYTES], u64, PR>::PROOF;
    assert!(
        !handle.is_null(),
        "supraseal-c2 (cuzk): finish_groth16_proof: null handle"
    );
    // SAFETY: a handle from start_groth16_proof, consumed once.
    let p = unsafe { Box::from_raw(handle as *mut Pending) };
    assert_eq!(
        proofs.len(),
        p.n,
        "supraseal-c2 (cuzk): finish_groth16_proof: room for {} proofs, {} were started",
        proofs.len(),
        p.n
    );
    if let Err(e) = p.finish(proofs.as_mut_ptr() as *mut c_void) {
        panic!("{}", e);
    }
}

/// Abandons the proofs of `handle` (waits for the running ones to end).
///
/// # Safety
/// `handle` must come from `start_groth16_proof` and not have been finished
/// or dropped; NULL is a no-op.
pub unsafe fn drop_pending_proof(handle: *mut c_void) {
    if !handle.is_null() {
        drop(Box::from_raw(handle as *mut Pending));
    }
}

/// A mutex for `gpu_mtx` (Curio's API). Free it with `free_gpu_mutex`.
pub fn alloc_gpu_mutex() -> *mut c_void {
    Box::into_raw(Box::new(GpuMutex::new(()))) as *mut c_void
}

/// Frees a mutex from `alloc_gpu_mutex`.
///
/// # Safety
/// `ptr` must come from `alloc_gpu_mutex`, be freed once and not be in use;
/// NULL is a no-op.
pub unsafe fn free_gpu_mutex(ptr: *mut c_void) {
    if !ptr.is_null() {
        drop(Box::from_raw(ptr as *mut GpuMutex));
    }
}

// ---- Beyond the original API -----------------------------------------------

/// Sizes of loaded parameters (libcuzk's `cuzk_bp_srs_info`).
#[derive(Clone, Debug, Default)]
pub struct SrsInfo {
    /// Inputs, ONE included.
    pub n_inputs: u32,
    /// The evaluation domain is 2^log_domain.
    pub log_domain: u32,
    pub n_h: u64,
    pub n_l: u64,
    pub n_a: u64,
    pub n_b: u64,
    pub backend: Option<Backend>,
    pub host_bytes: u64,
    pub device_bytes: u64,
    /// GPU: the most device memory measured in use so far (summed over the
    /// devices).
    pub device_peak: u64,
    /// GPU: the devices the parameters are on (1 on the CPU).
    pub n_devices: u32,
    /// Proofs that run at once (the GPU plans' workers over every device).
    pub workers: u32,
}

impl SRS {
    /// Sizes and memory of the loaded parameters.
    pub fn info(&self) -> Result<SrsInfo, Error> {
        let p = self.params()?;
        let mut i = ffi::cuzk_bp_srs_info::default();
        // SAFETY: loaded parameters, valid out-pointer.
        unsafe { ffi::cuzk_bp_srs_get_info(p.ptr, &mut i) };
        Ok(SrsInfo {
            n_inputs: i.n_inputs,
            log_domain: i.log_domain,
            n_h: i.n_h,
            n_l: i.n_l,
            n_a: i.n_a,
            n_b: i.n_b,
            backend: match i.backend {
                ffi::CUZK_BACKEND_CPU => Some(Backend::Cpu),
                ffi::CUZK_BACKEND_GPU => Some(Backend::Gpu),
                _ => None,
            },
            host_bytes: i.host_bytes,
            device_bytes: i.device_bytes,
            device_peak: i.device_peak,
            n_devices: i.n_devices,
            workers: i.workers,
        })
    }

    /// Releases the device memory these parameters hold (libcuzk prepares
    /// them again for the next proof); waits for running proofs.
    pub fn release_device_memory(&self) -> Result<(), Error> {
        let p = self.params()?;
        // SAFETY: loaded parameters (the call itself waits for users).
        unsafe { ffi::cuzk_bp_srs_evict(p.ptr) };
        Ok(())
    }
}

/// Verifies a proof (in memory, 384 bytes) against the verifying key of
/// `srs` with the public inputs (the inputs after ONE, Montgomery scalars).
/// `Ok(true)` valid, `Ok(false)` not a valid proof, `Err` for a wrong number
/// of inputs or an input out of range.
pub fn verify_groth16_proof<S, PR>(srs: &SRS, proof: &PR, inputs: &[S]) -> Result<bool, Error> {
    let () = Layout::<S, u64, PR>::SCALAR;
    let () = Layout::<S, u64, PR>::PROOF;
    let p = srs.params()?;
    let ctx = Ctx::new()?;
    let mut err = ffi::cuzk_error::new();
    // SAFETY: sizes checked; ctx is this call's own.
    let st = unsafe {
        ffi::cuzk_bp_verify(
            ctx.0,
            p.ptr,
            proof as *const PR as *const c_void,
            inputs.as_ptr() as *const c_void,
            inputs.len(),
            &mut err,
        )
    };
    const INVALID: ffi::cuzk_status = 5; // CUZK_ERR_INVALID_PROOF
    match st {
        ffi::CUZK_OK => Ok(true),
        INVALID => Ok(false),
        _ => Err(Error::from_c(st, &err)),
    }
}

/// bellperson's 192-byte encoding of a proof (`Proof::write`: A, B, C
/// compressed).
pub fn proof_to_bytes<PR>(proof: &PR) -> Result<[u8; 192], Error> {
    let () = Layout::<[u8; SCALAR_BYTES], u64, PR>::PROOF;
    let mut out = [0u8; 192];
    let mut err = ffi::cuzk_error::new();
    // SAFETY: a 384-byte proof, a 192-byte buffer.
    let st = unsafe {
        ffi::cuzk_bp_proof_to_bytes(
            proof as *const PR as *const c_void,
            out.as_mut_ptr(),
            &mut err,
        )
    };
    check(st, &err)?;
    Ok(out)
}
