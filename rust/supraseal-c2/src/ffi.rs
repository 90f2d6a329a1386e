//! The part of libcuzk's C API this crate uses: `include/cuzk/cuzk.h` and
//! `include/cuzk/bellperson.h`, mirrored by hand. The unit test at the
//! bottom compiles a C program against the headers and compares every size
//! and offset with these declarations.

#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_uint, c_void};

pub type cuzk_status = c_int;
pub const CUZK_OK: cuzk_status = 0;
pub const CUZK_ERR_USAGE: cuzk_status = 1;
pub const CUZK_ERR_NOMEM: cuzk_status = 6;

pub type cuzk_backend = c_int;
pub const CUZK_BACKEND_CPU: cuzk_backend = 0;
pub const CUZK_BACKEND_GPU: cuzk_backend = 1;
pub const CUZK_BACKEND_AUTO: cuzk_backend = 2;

pub const CUZK_ERROR_MSG_MAX: usize = 512;

#[repr(C)]
pub struct cuzk_error {
    pub code: cuzk_status,
    pub msg: [c_char; CUZK_ERROR_MSG_MAX],
}

impl cuzk_error {
    pub fn new() -> Self {
        cuzk_error {
            code: CUZK_OK,
            msg: [0; CUZK_ERROR_MSG_MAX],
        }
    }
}

#[repr(C)]
pub struct cuzk_pool {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct cuzk_ctx {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct cuzk_bp_srs {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct cuzk_bp_pending {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct cuzk_ctx_opts {
    pub threads: c_int,
    pub pool: *mut cuzk_pool,
    pub progress: Option<unsafe extern "C" fn(*mut c_void, c_int, f64)>,
    pub timing: Option<unsafe extern "C" fn(*mut c_void, c_int, f64)>,
    pub cancelled: Option<unsafe extern "C" fn(*mut c_void) -> c_int>,
    pub user: *mut c_void,
    pub span: Option<unsafe extern "C" fn(*mut c_void, *const c_void)>,
}

#[repr(C)]
pub struct cuzk_bp_srs_opts {
    pub backend: cuzk_backend,
    pub device: c_int,
    pub device_budget: u64,
    pub gpu_workers: c_uint,
    pub checked: c_int,
    pub host_budget: u64,
    pub gpu_stage_bases: c_int,
    pub device_count: c_int,
}

#[repr(C)]
#[derive(Default)]
pub struct cuzk_bp_srs_info {
    pub n_inputs: u32,
    pub log_domain: u32,
    pub n_h: u64,
    pub n_l: u64,
    pub n_a: u64,
    pub n_b: u64,
    pub n_aux: u64,
    pub backend: cuzk_backend,
    pub host_bytes: u64,
    pub device_bytes: u64,
    pub device_peak: u64,
    pub n_devices: c_uint,
    pub workers: c_uint,
}

#[repr(C)]
pub struct cuzk_bp_prove_opts {
    pub no_verify: c_int,
    pub pin_device: c_int,
    pub device: c_int,
}

// cuzk_bp_assignment is crate::Assignment<S> and cuzk_bp_fr / cuzk_bp_proof
// are the caller's 32- and 384-byte types: they cross as void pointers.
extern "C" {
    pub fn cuzk_status_name(s: cuzk_status) -> *const c_char;

    pub fn cuzk_pool_create(threads: c_int) -> *mut cuzk_pool;

    pub fn cuzk_ctx_create(
        out: *mut *mut cuzk_ctx,
        opts: *const cuzk_ctx_opts,
        err: *mut cuzk_error,
    ) -> cuzk_status;
    pub fn cuzk_ctx_free(ctx: *mut cuzk_ctx);

    pub fn cuzk_bp_srs_load(
        out: *mut *mut cuzk_bp_srs,
        ctx: *mut cuzk_ctx,
        path: *const c_char,
        opts: *const cuzk_bp_srs_opts,
        err: *mut cuzk_error,
    ) -> cuzk_status;
    pub fn cuzk_bp_srs_free(p: *mut cuzk_bp_srs);
    pub fn cuzk_bp_srs_get_info(p: *const cuzk_bp_srs, info: *mut cuzk_bp_srs_info);
    pub fn cuzk_bp_srs_evict(p: *mut cuzk_bp_srs);

    pub fn cuzk_bp_prove(
        ctx: *mut cuzk_ctx,
        p: *const cuzk_bp_srs,
        a: *const c_void,
        n: usize,
        r: *const c_void,
        s: *const c_void,
        out: *mut c_void,
        opts: *const cuzk_bp_prove_opts,
        err: *mut cuzk_error,
    ) -> cuzk_status;

    pub fn cuzk_bp_prove_start(
        ctx: *mut cuzk_ctx,
        p: *const cuzk_bp_srs,
        a: *const c_void,
        n: usize,
        r: *const c_void,
        s: *const c_void,
        opts: *const cuzk_bp_prove_opts,
        out: *mut *mut cuzk_bp_pending,
        err: *mut cuzk_error,
    ) -> cuzk_status;
    pub fn cuzk_bp_prove_finish(
        pending: *mut cuzk_bp_pending,
        out: *mut c_void,
        err: *mut cuzk_error,
    ) -> cuzk_status;
    pub fn cuzk_bp_prove_drop(pending: *mut cuzk_bp_pending);

    pub fn cuzk_bp_proof_to_bytes(
        proof: *const c_void,
        out: *mut u8,
        err: *mut cuzk_error,
    ) -> cuzk_status;
    pub fn cuzk_bp_verify(
        ctx: *mut cuzk_ctx,
        p: *const cuzk_bp_srs,
        proof: *const c_void,
        inputs: *const c_void,
        n_inputs: usize,
        err: *mut cuzk_error,
    ) -> cuzk_status;
}

#[cfg(test)]
mod layout {
    //! Every struct shared with C, compared with what a C compiler makes of
    //! the installed (or build tree's) headers.
    use super::*;
    use crate::Assignment;
    use std::mem::{size_of, MaybeUninit};
    use std::process::Command;

    macro_rules! offset {
        ($t:ty, $f:ident) => {{
            let u = MaybeUninit::<$t>::uninit();
            let base = u.as_ptr();
            // SAFETY: addr_of! on a field of an uninitialised value reads nothing.
            let field = unsafe { std::ptr::addr_of!((*base).$f) };
            field as usize - base as usize
        }};
    }

    fn rust_layout() -> String {
        type A = Assignment<[u64; 4]>;
        let mut s = String::new();
        let mut put = |k: &str, v: usize| s.push_str(&format!("{} {}\n", k, v));
        put("assignment", size_of::<A>());
        put("assignment.a_aux_density", offset!(A, a_aux_density));
        put("assignment.a_aux_bit_len", offset!(A, a_aux_bit_len));
        put("assignment.a_aux_popcount", offset!(A, a_aux_popcount));
        put("assignment.b_inp_density", offset!(A, b_inp_density));
        put("assignment.b_inp_bit_len", offset!(A, b_inp_bit_len));
        put("assignment.b_inp_popcount", offset!(A, b_inp_popcount));
        put("assignment.b_aux_density", offset!(A, b_aux_density));
        put("assignment.b_aux_bit_len", offset!(A, b_aux_bit_len));
        put("assignment.b_aux_popcount", offset!(A, b_aux_popcount));
        put("assignment.a", offset!(A, a));
        put("assignment.b", offset!(A, b));
        put("assignment.c", offset!(A, c));
        put("assignment.abc_size", offset!(A, abc_size));
        put("assignment.inp", offset!(A, inp_assignment_data));
        put("assignment.inp_size", offset!(A, inp_assignment_size));
        put("assignment.aux", offset!(A, aux_assignment_data));
        put("assignment.aux_size", offset!(A, aux_assignment_size));
        put("fr", crate::SCALAR_BYTES);
        put("proof", crate::PROOF_BYTES);
        put("error", size_of::<cuzk_error>());
        put("error.msg", offset!(cuzk_error, msg));
        put("ctx_opts", size_of::<cuzk_ctx_opts>());
        put("ctx_opts.pool", offset!(cuzk_ctx_opts, pool));
        put("ctx_opts.progress", offset!(cuzk_ctx_opts, progress));
        put("ctx_opts.timing", offset!(cuzk_ctx_opts, timing));
        put("ctx_opts.cancelled", offset!(cuzk_ctx_opts, cancelled));
        put("ctx_opts.user", offset!(cuzk_ctx_opts, user));
        put("ctx_opts.span", offset!(cuzk_ctx_opts, span));
        put("srs_opts", size_of::<cuzk_bp_srs_opts>());
        put("srs_opts.device", offset!(cuzk_bp_srs_opts, device));
        put(
            "srs_opts.device_budget",
            offset!(cuzk_bp_srs_opts, device_budget),
        );
        put(
            "srs_opts.gpu_workers",
            offset!(cuzk_bp_srs_opts, gpu_workers),
        );
        put("srs_opts.checked", offset!(cuzk_bp_srs_opts, checked));
        put(
            "srs_opts.host_budget",
            offset!(cuzk_bp_srs_opts, host_budget),
        );
        put(
            "srs_opts.gpu_stage_bases",
            offset!(cuzk_bp_srs_opts, gpu_stage_bases),
        );
        put(
            "srs_opts.device_count",
            offset!(cuzk_bp_srs_opts, device_count),
        );
        put("srs_info", size_of::<cuzk_bp_srs_info>());
        put("srs_info.log_domain", offset!(cuzk_bp_srs_info, log_domain));
        put("srs_info.n_h", offset!(cuzk_bp_srs_info, n_h));
        put("srs_info.n_aux", offset!(cuzk_bp_srs_info, n_aux));
        put("srs_info.backend", offset!(cuzk_bp_srs_info, backend));
        put("srs_info.host_bytes", offset!(cuzk_bp_srs_info, host_bytes));
        put(
            "srs_info.device_peak",
            offset!(cuzk_bp_srs_info, device_peak),
        );
        put("srs_info.n_devices", offset!(cuzk_bp_srs_info, n_devices));
        put("srs_info.workers", offset!(cuzk_bp_srs_info, workers));
        put("prove_opts", size_of::<cuzk_bp_prove_opts>());
        put(
            "prove_opts.pin_device",
            offset!(cuzk_bp_prove_opts, pin_device),
        );
        put("prove_opts.device", offset!(cuzk_bp_prove_opts, device));
        put("backend.cpu", CUZK_BACKEND_CPU as usize);
        put("backend.gpu", CUZK_BACKEND_GPU as usize);
        put("backend.auto", CUZK_BACKEND_AUTO as usize);
        put("status.usage", CUZK_ERR_USAGE as usize);
        put("status.nomem", CUZK_ERR_NOMEM as usize);
        put("error_msg_max", CUZK_ERROR_MSG_MAX);
        s
    }

    const PROBE: &str = r#"
#include <cuzk/bellperson.h>
#include <stddef.h>
#include <stdio.h>
#define S(k, v) printf("%s %zu\n", k, (size_t)(v))
#define O(k, t, f) S(k, offsetof(t, f))
int main(void)
{
    S("assignment", sizeof(cuzk_bp_assignment));
    O("assignment.a_aux_density", cuzk_bp_assignment, a_aux_density);
    O("assignment.a_aux_bit_len", cuzk_bp_assignment, a_aux_bit_len);
    O("assignment.a_aux_popcount", cuzk_bp_assignment, a_aux_popcount);
    O("assignment.b_inp_density", cuzk_bp_assignment, b_inp_density);
    O("assignment.b_inp_bit_len", cuzk_bp_assignment, b_inp_bit_len);
    O("assignment.b_inp_popcount", cuzk_bp_assignment, b_inp_popcount);
    O("assignment.b_aux_density", cuzk_bp_assignment, b_aux_density);
    O("assignment.b_aux_bit_len", cuzk_bp_assignment, b_aux_bit_len);
    O("assignment.b_aux_popcount", cuzk_bp_assignment, b_aux_popcount);
    O("assignment.a", cuzk_bp_assignment, a);
    O("assignment.b", cuzk_bp_assignment, b);
    O("assignment.c", cuzk_bp_assignment, c);
    O("assignment.abc_size", cuzk_bp_assignment, abc_size);
    O("assignment.inp", cuzk_bp_assignment, inp);
    O("assignment.inp_size", cuzk_bp_assignment, inp_size);
    O("assignment.aux", cuzk_bp_assignment, aux);
    O("assignment.aux_size", cuzk_bp_assignment, aux_size);
    S("fr", sizeof(cuzk_bp_fr));
    S("proof", sizeof(cuzk_bp_proof));
    S("error", sizeof(cuzk_error));
    O("error.msg", cuzk_error, msg);
    S("ctx_opts", sizeof(cuzk_ctx_opts));
    O("ctx_opts.pool", cuzk_ctx_opts, pool);
    O("ctx_opts.progress", cuzk_ctx_opts, progress);
    O("ctx_opts.timing", cuzk_ctx_opts, timing);
    O("ctx_opts.cancelled", cuzk_ctx_opts, cancelled);
    O("ctx_opts.user", cuzk_ctx_opts, user);
    O("ctx_opts.span", cuzk_ctx_opts, span);
    S("srs_opts", sizeof(cuzk_bp_srs_opts));
    O("srs_opts.device", cuzk_bp_srs_opts, device);
    O("srs_opts.device_budget", cuzk_bp_srs_opts, device_budget);
    O("srs_opts.gpu_workers", cuzk_bp_srs_opts, gpu_workers);
    O("srs_opts.checked", cuzk_bp_srs_opts, checked);
    O("srs_opts.host_budget", cuzk_bp_srs_opts, host_budget);
    O("srs_opts.gpu_stage_bases", cuzk_bp_srs_opts, gpu_stage_bases);
    O("srs_opts.device_count", cuzk_bp_srs_opts, device_count);
    S("srs_info", sizeof(cuzk_bp_srs_info));
    O("srs_info.log_domain", cuzk_bp_srs_info, log_domain);
    O("srs_info.n_h", cuzk_bp_srs_info, n_h);
    O("srs_info.n_aux", cuzk_bp_srs_info, n_aux);
    O("srs_info.backend", cuzk_bp_srs_info, backend);
    O("srs_info.host_bytes", cuzk_bp_srs_info, host_bytes);
    O("srs_info.device_peak", cuzk_bp_srs_info, device_peak);
    O("srs_info.n_devices", cuzk_bp_srs_info, n_devices);
    O("srs_info.workers", cuzk_bp_srs_info, workers);
    S("prove_opts", sizeof(cuzk_bp_prove_opts));
    O("prove_opts.pin_device", cuzk_bp_prove_opts, pin_device);
    O("prove_opts.device", cuzk_bp_prove_opts, device);
    S("backend.cpu", CUZK_BACKEND_CPU);
    S("backend.gpu", CUZK_BACKEND_GPU);
    S("backend.auto", CUZK_BACKEND_AUTO);
    S("status.usage", CUZK_ERR_USAGE);
    S("status.nomem", CUZK_ERR_NOMEM);
    S("error_msg_max", CUZK_ERROR_MSG_MAX);
    return 0;
}
"#;

    /// Compiles PROBE with the C compiler (`CC`, else `cc`) against the
    /// headers libcuzk was found with, and compares its output with ours.
    #[test]
    fn c_and_rust_layouts_agree() {
        let include = env!("SUPRASEAL_C2_CUZK_INCLUDE");
        let dir = std::env::temp_dir().join(format!("supraseal-c2-layout-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = dir.join("probe.c");
        let exe = dir.join("probe");
        std::fs::write(&src, PROBE).unwrap();
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
        let st = Command::new(&cc)
            .args(["-std=c11", "-Wall", "-Werror", "-I", include])
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .status()
            .unwrap_or_else(|e| panic!("cannot run the C compiler {}: {}", cc, e));
        assert!(
            st.success(),
            "the layout probe did not compile against {}",
            include
        );
        let out = Command::new(&exe).output().unwrap();
        assert!(out.status.success());
        let c = String::from_utf8(out.stdout).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let rust = rust_layout();
        for (cl, rl) in c.lines().zip(rust.lines()) {
            assert_eq!(cl, rl, "C (left) and Rust (right) layouts differ");
        }
        assert_eq!(c.lines().count(), rust.lines().count());
    }
}
