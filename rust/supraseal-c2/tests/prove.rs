//! Proves and verifies through the crate's API against libcuzk, as bellperson
//! would call it: a small circuit written here (as a circom r1cs for
//! `cuzk_bp_setup_files`, which makes INSECURE bellperson-layout parameters),
//! its assignment built here the way bellperson's synthesis builds one
//! (per-constraint evaluations, input constraints, density bitmaps,
//! Montgomery scalars), proofs checked by libcuzk's verifier, by the `cuzk`
//! CLI (`cuzk verify --format bellperson`, from their 192-byte encoding,
//! which is also recomputed here), and rejected when tampered with.

#![allow(clippy::needless_range_loop)]

use std::os::raw::{c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use supraseal_c2::{Assignment, SRS};

// ---- Montgomery arithmetic, enough for this test ---------------------------

/// BLS12-381 scalar field modulus r, little-endian limbs.
const R_MOD: [u64; 4] = [
    0xffffffff00000001,
    0x53bda402fffe5bfe,
    0x3339d80809a1d805,
    0x73eda753299d7d48,
];
/// BLS12-381 base field modulus q.
const Q_MOD: [u64; 6] = [
    0xb9feffffffffaaab,
    0x1eabfffeb153ffff,
    0x6730d2a0f6b0f624,
    0x64774b84f38512bf,
    0x4b1ba7b6434bacd7,
    0x1a0111ea397fe69a,
];

fn geq<const N: usize>(a: &[u64; N], b: &[u64; N]) -> bool {
    for i in (0..N).rev() {
        if a[i] != b[i] {
            return a[i] > b[i];
        }
    }
    true
}

fn sub<const N: usize>(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
    let mut out = [0u64; N];
    let mut borrow = 0u64;
    for i in 0..N {
        let (d1, b1) = a[i].overflowing_sub(b[i]);
        let (d2, b2) = d1.overflowing_sub(borrow);
        out[i] = d2;
        borrow = (b1 | b2) as u64;
    }
    out
}

fn add_mod<const N: usize>(a: &[u64; N], b: &[u64; N], m: &[u64; N]) -> [u64; N] {
    let mut out = [0u64; N];
    let mut carry = 0u128;
    for i in 0..N {
        let s = a[i] as u128 + b[i] as u128 + carry;
        out[i] = s as u64;
        carry = s >> 64;
    }
    if carry != 0 || geq(&out, m) {
        out = sub(&out, m);
    }
    out
}

fn neg_inv(m0: u64) -> u64 {
    let mut x = 1u64;
    for _ in 0..7 {
        x = x.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(x)));
    }
    x.wrapping_neg()
}

/// a·b·2^(-64N) mod m (CIOS).
fn mont_mul<const N: usize>(a: &[u64; N], b: &[u64; N], m: &[u64; N]) -> [u64; N] {
    let inv = neg_inv(m[0]);
    let mut t = [0u64; 8];
    for i in 0..N {
        let mut c = 0u128;
        for j in 0..N {
            let s = t[j] as u128 + a[j] as u128 * b[i] as u128 + c;
            t[j] = s as u64;
            c = s >> 64;
        }
        let s = t[N] as u128 + c;
        t[N] = s as u64;
        t[N + 1] = (s >> 64) as u64;
        let q = t[0].wrapping_mul(inv);
        let mut c = (t[0] as u128 + q as u128 * m[0] as u128) >> 64;
        for j in 1..N {
            let s = t[j] as u128 + q as u128 * m[j] as u128 + c;
            t[j - 1] = s as u64;
            c = s >> 64;
        }
        let s = t[N] as u128 + c;
        t[N - 1] = s as u64;
        t[N] = t[N + 1] + (s >> 64) as u64;
    }
    let mut out = [0u64; N];
    out.copy_from_slice(&t[..N]);
    if t[N] != 0 || geq(&out, m) {
        out = sub(&out, m);
    }
    out
}

/// 2^(2·64N) mod m: converts into Montgomery form by one mont_mul.
fn r2<const N: usize>(m: &[u64; N]) -> [u64; N] {
    let mut x = [0u64; N];
    x[0] = 1;
    for _ in 0..2 * 64 * N {
        x = add_mod(&x, &x, m);
    }
    x
}

fn from_mont<const N: usize>(a: &[u64; N], m: &[u64; N]) -> [u64; N] {
    let mut one = [0u64; N];
    one[0] = 1;
    mont_mul(a, &one, m)
}

/// A scalar as bellperson holds it: blstrs Scalar, Montgomery form.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
struct Fr([u64; 4]);

thread_local! {
    static FR_R2: [u64; 4] = r2(&R_MOD);
}

impl Fr {
    fn from_canonical(v: [u64; 4]) -> Fr {
        assert!(!geq(&v, &R_MOD));
        Fr(FR_R2.with(|r2| mont_mul(&v, r2, &R_MOD)))
    }
    fn from_u64(v: u64) -> Fr {
        Fr::from_canonical([v, 0, 0, 0])
    }
    fn canonical(&self) -> [u64; 4] {
        from_mont(&self.0, &R_MOD)
    }
    fn mul(&self, o: &Fr) -> Fr {
        Fr(mont_mul(&self.0, &o.0, &R_MOD))
    }
    fn add(&self, o: &Fr) -> Fr {
        Fr(add_mod(&self.0, &o.0, &R_MOD))
    }
    fn is_zero(&self) -> bool {
        self.0 == [0; 4]
    }
    fn decimal(&self) -> String {
        let mut v = self.canonical();
        let mut digits = Vec::new();
        loop {
            let mut rem = 0u128;
            for i in (0..4).rev() {
                let cur = (rem << 64) | v[i] as u128;
                v[i] = (cur / 10) as u64;
                rem = cur % 10;
            }
            digits.push(b'0' + rem as u8);
            if v == [0; 4] {
                break;
            }
        }
        digits.reverse();
        String::from_utf8(digits).unwrap()
    }
    fn le_bytes(&self) -> [u8; 32] {
        let c = self.canonical();
        let mut out = [0u8; 32];
        for i in 0..4 {
            out[8 * i..8 * i + 8].copy_from_slice(&c[i].to_le_bytes());
        }
        out
    }
}

/// A proof as bellperson holds it: Proof<Bls12> = {G1 a; G2 b; G1 c} of blst
/// affine points, Montgomery Fp limbs, G2 as x.c0, x.c1, y.c0, y.c1.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Proof {
    a: [u64; 12],
    b: [u64; 24],
    c: [u64; 12],
}

fn fp(limbs: &[u64]) -> [u64; 6] {
    let mut x = [0u64; 6];
    x.copy_from_slice(limbs);
    x
}

fn fp_be(x: &[u64; 6]) -> [u8; 48] {
    let mut out = [0u8; 48];
    for i in 0..6 {
        out[48 - 8 * (i + 1)..48 - 8 * i].copy_from_slice(&x[i].to_be_bytes());
    }
    out
}

/// y > q - y, i.e. y is the larger of ±y (zcash's sort flag).
fn larger(y: &[u64; 6]) -> bool {
    *y != [0; 6] && !geq(&sub(&Q_MOD, y), y)
}

/// Zcash compressed encoding, computed independently of libcuzk.
fn g1_compressed(p: &[u64; 12]) -> [u8; 48] {
    if p.iter().all(|&w| w == 0) {
        let mut out = [0u8; 48];
        out[0] = 0xc0;
        return out;
    }
    let x = from_mont(&fp(&p[0..6]), &Q_MOD);
    let y = from_mont(&fp(&p[6..12]), &Q_MOD);
    let mut out = fp_be(&x);
    out[0] |= 0x80;
    if larger(&y) {
        out[0] |= 0x20;
    }
    out
}

fn g2_compressed(p: &[u64; 24]) -> [u8; 96] {
    let mut out = [0u8; 96];
    if p.iter().all(|&w| w == 0) {
        out[0] = 0xc0;
        return out;
    }
    let x0 = from_mont(&fp(&p[0..6]), &Q_MOD);
    let x1 = from_mont(&fp(&p[6..12]), &Q_MOD);
    let y0 = from_mont(&fp(&p[12..18]), &Q_MOD);
    let y1 = from_mont(&fp(&p[18..24]), &Q_MOD);
    out[..48].copy_from_slice(&fp_be(&x1));
    out[48..].copy_from_slice(&fp_be(&x0));
    out[0] |= 0x80;
    if larger(&y1) || (y1 == [0; 6] && larger(&y0)) {
        out[0] |= 0x20;
    }
    out
}

fn proof_192(p: &Proof) -> Vec<u8> {
    let mut v = Vec::with_capacity(192);
    v.extend_from_slice(&g1_compressed(&p.a));
    v.extend_from_slice(&g2_compressed(&p.b));
    v.extend_from_slice(&g1_compressed(&p.c));
    v
}

// ---- A small circuit ----------------------------------------------------------

/// Deterministic test randomness (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545f4914f6cdd1d)
    }
    fn fr(&mut self) -> Fr {
        let mut v = [self.next(), self.next(), self.next(), self.next()];
        v[3] &= 0x3fff_ffff_ffff_ffff; // < r
        Fr::from_canonical(v)
    }
}

type Lc = Vec<(usize, Fr)>;

/// Wires as circom numbers them: 0 ONE, 1 the output y, 2 the public input
/// k, then x (private input) and the intermediate signals. bellperson's
/// inputs are wires 0..3, its aux variables the rest, in order.
const N_INPUTS: usize = 3;
const CHAIN: usize = 70; // multiplications: aux variables beyond one bitmap word

struct Circuit {
    n_wires: usize,
    constraints: Vec<(Lc, Lc, Lc)>,
}

fn circuit() -> Circuit {
    let one = Fr::from_u64(1);
    let (y, k, x, t1, t2, t3, t4, t5) = (1, 2, 3, 4, 5, 6, 7, 8);
    let mut cs: Vec<(Lc, Lc, Lc)> = vec![
        // x·x = t1
        (vec![(x, one)], vec![(x, one)], vec![(t1, one)]),
        // t1·(x + k) = t2: an input in B
        (vec![(t1, one)], vec![(k, one), (x, one)], vec![(t2, one)]),
        // (t2 + 3x + 5)·1 = y: ONE in B
        (
            vec![(0, Fr::from_u64(5)), (t2, one), (x, Fr::from_u64(3))],
            vec![(0, one)],
            vec![(y, one)],
        ),
        // x·k = t3: t3 only in C (in neither density)
        (vec![(x, one)], vec![(k, one)], vec![(t3, one)]),
        // t4·t4 = t4 (t4 = 1): in A, B and C
        (vec![(t4, one)], vec![(t4, one)], vec![(t4, one)]),
        // 1·t5 = 7: t5 in B only
        (vec![(0, one)], vec![(t5, one)], vec![(0, Fr::from_u64(7))]),
    ];
    // u_0 = x, u_(i+1) = u_i·(u_i + k); the last one only in C.
    let mut prev = x;
    for i in 0..CHAIN {
        let next = 9 + i;
        cs.push((
            vec![(prev, one)],
            vec![(k, one), (prev, one)],
            vec![(next, one)],
        ));
        prev = next;
    }
    Circuit {
        n_wires: 9 + CHAIN,
        constraints: cs,
    }
}

fn witness(x: Fr, k: Fr) -> Vec<Fr> {
    let mut w = vec![Fr::default(); 9 + CHAIN];
    w[0] = Fr::from_u64(1);
    w[2] = k;
    w[3] = x;
    w[4] = x.mul(&x);
    w[5] = w[4].mul(&x.add(&k));
    w[1] = w[5].add(&x.mul(&Fr::from_u64(3))).add(&Fr::from_u64(5));
    w[6] = x.mul(&k);
    w[7] = Fr::from_u64(1);
    w[8] = Fr::from_u64(7);
    let mut prev = x;
    for i in 0..CHAIN {
        let next = prev.mul(&prev.add(&k));
        w[9 + i] = next;
        prev = next;
    }
    w
}

fn eval(lc: &Lc, w: &[Fr]) -> Fr {
    lc.iter()
        .fold(Fr::default(), |acc, (i, c)| acc.add(&c.mul(&w[*i])))
}

/// The circom r1cs of the circuit (format version 1, header, constraints,
/// wire-to-label map), over BLS12-381's r.
fn write_r1cs(c: &Circuit, path: &Path) {
    let mut header = Vec::new();
    header.extend_from_slice(&32u32.to_le_bytes());
    for l in R_MOD {
        header.extend_from_slice(&l.to_le_bytes());
    }
    header.extend_from_slice(&(c.n_wires as u32).to_le_bytes());
    header.extend_from_slice(&1u32.to_le_bytes()); // public outputs: y
    header.extend_from_slice(&1u32.to_le_bytes()); // public inputs: k
    header.extend_from_slice(&1u32.to_le_bytes()); // private inputs: x
    header.extend_from_slice(&(c.n_wires as u64).to_le_bytes());
    header.extend_from_slice(&(c.constraints.len() as u32).to_le_bytes());
    let mut cons = Vec::new();
    for (a, b, cc) in &c.constraints {
        for lc in [a, b, cc] {
            let mut lc = lc.clone();
            lc.sort_by_key(|t| t.0);
            cons.extend_from_slice(&(lc.len() as u32).to_le_bytes());
            for (wire, coef) in lc {
                cons.extend_from_slice(&(wire as u32).to_le_bytes());
                cons.extend_from_slice(&coef.le_bytes());
            }
        }
    }
    let mut labels = Vec::new();
    for i in 0..c.n_wires as u64 {
        labels.extend_from_slice(&i.to_le_bytes());
    }
    let mut f = Vec::new();
    f.extend_from_slice(b"r1cs");
    f.extend_from_slice(&1u32.to_le_bytes());
    f.extend_from_slice(&3u32.to_le_bytes());
    for (ty, body) in [(1u32, &header), (2, &cons), (3, &labels)] {
        f.extend_from_slice(&ty.to_le_bytes());
        f.extend_from_slice(&(body.len() as u64).to_le_bytes());
        f.extend_from_slice(body);
    }
    std::fs::write(path, f).unwrap();
}

/// What bellperson's ProvingAssignment holds after synthesis: evaluations
/// (circuit constraints, then input_i·1 = 0 per input), assignments and
/// densities (a term counts when its coefficient is nonzero; inputs in A are
/// not tracked).
struct Synth {
    a: Vec<Fr>,
    b: Vec<Fr>,
    c: Vec<Fr>,
    inp: Vec<Fr>,
    aux: Vec<Fr>,
    a_aux: Vec<usize>,
    b_inp: Vec<usize>,
    b_aux: Vec<usize>,
}

/// Curio's `start_groth16_proof` over circuits shaped as `s0` (its sizes
/// and densities), their A, B, C at `abc` and values at `pi` (inputs) and
/// `px` (aux), one pointer a circuit.
#[allow(clippy::too_many_arguments)]
fn start_split(
    s0: &Synth,
    abc: [&[*const Fr]; 3],
    pi: &[*const Fr],
    px: &[*const Fr],
    r: &[Fr],
    s: &[Fr],
    srs: &SRS,
    mtx: *mut c_void,
    gpu_index: i32,
) -> *mut c_void {
    supraseal_c2::start_groth16_proof(
        abc[0],
        abc[1],
        abc[2],
        s0.a.len(),
        pi,
        px,
        s0.inp.len(),
        s0.aux.len(),
        &s0.a_aux,
        &s0.b_inp,
        &s0.b_aux,
        popcount(&s0.a_aux),
        popcount(&s0.b_inp),
        popcount(&s0.b_aux),
        pi.len(),
        r,
        s,
        srs,
        mtx,
        gpu_index,
    )
}

fn set_bit(bv: &mut [usize], i: usize) {
    bv[i / 64] |= 1usize << (i % 64);
}

fn popcount(bv: &[usize]) -> usize {
    bv.iter().map(|w| w.count_ones() as usize).sum()
}

fn synthesize(c: &Circuit, w: &[Fr]) -> Synth {
    let n_aux = c.n_wires - N_INPUTS;
    let words = |n: usize| vec![0usize; (n + 63) / 64];
    let mut s = Synth {
        a: Vec::new(),
        b: Vec::new(),
        c: Vec::new(),
        inp: w[..N_INPUTS].to_vec(),
        aux: w[N_INPUTS..].to_vec(),
        a_aux: words(n_aux),
        b_inp: words(N_INPUTS),
        b_aux: words(n_aux),
    };
    for (a, b, cc) in &c.constraints {
        let (ea, eb, ec) = (eval(a, w), eval(b, w), eval(cc, w));
        assert_eq!(
            ea.mul(&eb),
            ec,
            "the test's witness does not satisfy its circuit"
        );
        for (i, coef) in a {
            if *i >= N_INPUTS && !coef.is_zero() {
                set_bit(&mut s.a_aux, i - N_INPUTS);
            }
        }
        for (i, coef) in b {
            if coef.is_zero() {
                continue;
            }
            if *i >= N_INPUTS {
                set_bit(&mut s.b_aux, i - N_INPUTS);
            } else {
                set_bit(&mut s.b_inp, *i);
            }
        }
        s.a.push(ea);
        s.b.push(eb);
        s.c.push(ec);
    }
    for i in 0..N_INPUTS {
        s.a.push(w[i]);
        s.b.push(Fr::default());
        s.c.push(Fr::default());
    }
    s
}

fn assignment(s: &Synth) -> Assignment<Fr> {
    Assignment {
        a_aux_density: s.a_aux.as_ptr(),
        a_aux_bit_len: s.aux.len(),
        a_aux_popcount: popcount(&s.a_aux),
        b_inp_density: s.b_inp.as_ptr(),
        b_inp_bit_len: s.inp.len(),
        b_inp_popcount: popcount(&s.b_inp),
        b_aux_density: s.b_aux.as_ptr(),
        b_aux_bit_len: s.aux.len(),
        b_aux_popcount: popcount(&s.b_aux),
        a: s.a.as_ptr(),
        b: s.b.as_ptr(),
        c: s.c.as_ptr(),
        abc_size: s.a.len(),
        inp_assignment_data: s.inp.as_ptr(),
        inp_assignment_size: s.inp.len(),
        aux_assignment_data: s.aux.as_ptr(),
        aux_assignment_size: s.aux.len(),
    }
}

// ---- Parameters, made once ------------------------------------------------------

#[repr(C)]
struct CuzkError {
    code: c_int,
    msg: [c_char; 512],
}

extern "C" {
    fn cuzk_ctx_create(out: *mut *mut c_void, opts: *const c_void, err: *mut CuzkError) -> c_int;
    fn cuzk_ctx_free(ctx: *mut c_void);
    fn cuzk_bp_setup_files(
        ctx: *mut c_void,
        r1cs: *const c_char,
        params: *const c_char,
        vk: *const c_char,
        err: *mut CuzkError,
    ) -> c_int;
}

fn tmpdir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("supraseal-c2-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

static PARAMS: Mutex<Option<PathBuf>> = Mutex::new(None);

/// INSECURE parameters for circuit(), written by libcuzk's setup once per run.
fn params() -> PathBuf {
    let mut g = PARAMS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(p) = g.as_ref() {
        return p.clone();
    }
    let dir = tmpdir();
    let r1cs = dir.join("circuit.r1cs");
    let params = dir.join("circuit.params");
    let vk = dir.join("circuit.vk");
    write_r1cs(&circuit(), &r1cs);
    let cstr = |p: &Path| std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    let (cr, cp, cv) = (cstr(&r1cs), cstr(&params), cstr(&vk));
    let mut err = CuzkError {
        code: 0,
        msg: [0; 512],
    };
    unsafe {
        let mut ctx = std::ptr::null_mut();
        assert_eq!(cuzk_ctx_create(&mut ctx, std::ptr::null(), &mut err), 0);
        let st = cuzk_bp_setup_files(ctx, cr.as_ptr(), cp.as_ptr(), cv.as_ptr(), &mut err);
        cuzk_ctx_free(ctx);
        let msg = std::ffi::CStr::from_ptr(err.msg.as_ptr())
            .to_string_lossy()
            .into_owned();
        assert_eq!(st, 0, "cuzk_bp_setup_files: {}", msg);
    }
    *g = Some(params.clone());
    params
}

/// The `cuzk` CLI next to the libcuzk this was built with, or
/// $SUPRASEAL_C2_CUZK_BIN (test binaries run on another machine).
fn cuzk_bin() -> PathBuf {
    let p = PathBuf::from(
        std::env::var_os("SUPRASEAL_C2_CUZK_BIN")
            .unwrap_or_else(|| env!("SUPRASEAL_C2_CUZK_BIN").into()),
    );
    assert!(
        p.is_file(),
        "{}: the cuzk CLI is not there (SUPRASEAL_C2_CUZK_BIN)",
        p.display()
    );
    p
}

/// `cuzk verify --format bellperson`: the CLI's exit code.
fn cli_verify(key: &Path, inputs: &[Fr], proof: &[u8], tag: &str) -> i32 {
    let dir = tmpdir();
    let public = dir.join(format!("{}.public.json", tag));
    let proof_path = dir.join(format!("{}.proof.bin", tag));
    let json: Vec<String> = inputs
        .iter()
        .map(|v| format!("\"{}\"", v.decimal()))
        .collect();
    std::fs::write(&public, format!("[{}]", json.join(","))).unwrap();
    std::fs::write(&proof_path, proof).unwrap();
    let out = Command::new(cuzk_bin())
        .args(["verify", "--format", "bellperson"])
        .arg(key)
        .arg(&public)
        .arg(&proof_path)
        .output()
        .unwrap();
    out.status.code().unwrap_or(-1)
}

fn random_r_s(rng: &mut Rng, n: usize) -> (Vec<Fr>, Vec<Fr>) {
    (
        (0..n).map(|_| rng.fr()).collect(),
        (0..n).map(|_| rng.fr()).collect(),
    )
}

fn panic_message(r: std::thread::Result<()>) -> String {
    let e = r.expect_err("expected a panic");
    if let Some(s) = e.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = e.downcast_ref::<&str>() {
        s.to_string()
    } else {
        String::new()
    }
}

// ---- Tests -------------------------------------------------------------------------

#[test]
fn proves_and_verifies_a_batch() {
    let path = params();
    let srs = SRS::try_new(path.clone(), false).expect("load parameters");
    let info = srs.info().unwrap();
    let c = circuit();
    assert_eq!(info.n_inputs as usize, N_INPUTS);
    assert_eq!(info.n_l as usize, c.n_wires - N_INPUTS);

    let mut rng = Rng(0x5eed_1234_5678_9abc);
    let n = 3;
    let synths: Vec<Synth> = (0..n)
        .map(|_| synthesize(&c, &witness(rng.fr(), rng.fr())))
        .collect();
    let provers: Vec<Assignment<Fr>> = synths.iter().map(assignment).collect();
    let (r_s, s_s) = random_r_s(&mut rng, n);
    let mut proofs = vec![Proof::default(); n];
    supraseal_c2::generate_groth16_proofs(&provers, &r_s, &s_s, &mut proofs, &srs);

    for (i, (p, s)) in proofs.iter().zip(&synths).enumerate() {
        let public = &s.inp[1..];
        assert!(
            supraseal_c2::verify_groth16_proof(&srs, p, public).unwrap(),
            "proof {} invalid",
            i
        );
        // bellperson's 192 bytes: libcuzk's encoder and this file's agree.
        let bytes = supraseal_c2::proof_to_bytes(p).unwrap();
        let ours = proof_192(p);
        assert_eq!(
            &bytes[..],
            &ours[..],
            "proof {}: 192-byte encodings differ",
            i
        );
        // The CLI verifies them from the file, with the .params and the .vk.
        assert_eq!(
            cli_verify(&path, public, &bytes, &format!("ok{}", i)),
            0,
            "cuzk verify, proof {}",
            i
        );
        assert_eq!(
            cli_verify(
                &path.with_extension("vk"),
                public,
                &bytes,
                &format!("okvk{}", i)
            ),
            0
        );
        // Another circuit's inputs, a changed input, a flipped bit: rejected.
        let other = &synths[(i + 1) % n].inp[1..];
        assert!(!supraseal_c2::verify_groth16_proof(&srs, p, other).unwrap());
        assert_ne!(cli_verify(&path, other, &bytes, &format!("other{}", i)), 0);
        let mut changed = public.to_vec();
        changed[1] = changed[1].add(&Fr::from_u64(1));
        assert!(!supraseal_c2::verify_groth16_proof(&srs, p, &changed).unwrap());
        for (j, bit) in [(5usize, 0x01u8), (50, 0x10), (150, 0x02)] {
            let mut t = bytes;
            t[j] ^= bit;
            assert_ne!(
                cli_verify(&path, public, &t, &format!("flip{}_{}", i, j)),
                0,
                "flipped byte {}",
                j
            );
        }
        let swapped = Proof {
            a: p.c,
            b: p.b,
            c: p.a,
        };
        assert!(!supraseal_c2::verify_groth16_proof(&srs, &swapped, public).unwrap());
    }
    // Different blinding factors: different proofs of the same statements.
    assert_ne!(proof_192(&proofs[0]), proof_192(&proofs[1]));

    // The same proofs (same r, s) through generate_groth16_proof (the parts
    // of equally shaped circuits, one set of densities) ...
    let ptrs = |f: &dyn Fn(&Synth) -> *const Fr| synths.iter().map(f).collect::<Vec<_>>();
    let (pa, pb, pc) = (
        ptrs(&|s| s.a.as_ptr()),
        ptrs(&|s| s.b.as_ptr()),
        ptrs(&|s| s.c.as_ptr()),
    );
    let (pi, px) = (ptrs(&|s| s.inp.as_ptr()), ptrs(&|s| s.aux.as_ptr()));
    let s0 = &synths[0];
    let mut again = vec![Proof::default(); n];
    supraseal_c2::generate_groth16_proof(
        &pa,
        &pb,
        &pc,
        s0.a.len(),
        &pi,
        &px,
        s0.inp.len(),
        s0.aux.len(),
        &s0.a_aux,
        &s0.b_inp,
        &s0.b_aux,
        popcount(&s0.a_aux),
        popcount(&s0.b_inp),
        popcount(&s0.b_aux),
        n,
        &r_s,
        &s_s,
        &mut again,
        &srs,
        #[cfg(feature = "curio")]
        std::ptr::null_mut(),
        #[cfg(feature = "curio")]
        -1,
    );
    for i in 0..n {
        assert_eq!(
            proof_192(&again[i]),
            proof_192(&proofs[i]),
            "generate_groth16_proof, proof {}",
            i
        );
    }

    // ... and through Curio's start / finish, with a GPU mutex. Curio's
    // bellperson frees A, B, C as soon as start returns: here they are
    // copies, overwritten and freed before finish.
    let mut abc: Vec<[Vec<Fr>; 3]> = synths
        .iter()
        .map(|s| [s.a.clone(), s.b.clone(), s.c.clone()])
        .collect();
    let (ca, cb, cc): (Vec<_>, Vec<_>, Vec<_>) = abc
        .iter()
        .map(|v| (v[0].as_ptr(), v[1].as_ptr(), v[2].as_ptr()))
        .fold(
            (Vec::new(), Vec::new(), Vec::new()),
            |mut acc, (a, b, c)| {
                acc.0.push(a);
                acc.1.push(b);
                acc.2.push(c);
                acc
            },
        );
    let mtx = supraseal_c2::alloc_gpu_mutex();
    let handle = start_split(s0, [&ca, &cb, &cc], &pi, &px, &r_s, &s_s, &srs, mtx, 0);
    for v in abc.iter_mut().flatten() {
        v.iter_mut().for_each(|x| *x = Fr::from_u64(3));
    }
    drop(abc);
    let mut split = vec![Proof::default(); n];
    supraseal_c2::finish_groth16_proof(handle, &mut split);
    unsafe { supraseal_c2::free_gpu_mutex(mtx) };
    for i in 0..n {
        assert_eq!(
            proof_192(&split[i]),
            proof_192(&proofs[i]),
            "start/finish, proof {}",
            i
        );
    }

    // Without randomization (r = s = 0, as bellperson passes by default).
    let zeros = vec![Fr::default(); n];
    let mut plain = vec![Proof::default(); n];
    supraseal_c2::generate_groth16_proofs(&provers, &zeros, &zeros, &mut plain, &srs);
    for (p, s) in plain.iter().zip(&synths) {
        assert!(supraseal_c2::verify_groth16_proof(&srs, p, &s.inp[1..]).unwrap());
    }
}

#[test]
fn errors_carry_libcuzk_messages() {
    let missing = tmpdir().join("no-such.params");
    let e = SRS::try_new(missing.clone(), false)
        .err()
        .expect("a missing file is an error");
    let msg = e.to_string();
    assert!(
        msg.contains("no-such.params"),
        "message names the file: {}",
        msg
    );
    assert!(!msg.contains('\n'));
    assert_eq!(e.code, 2, "CUZK_ERR_IO: {}", msg);

    // A truncated parameter file.
    let full = std::fs::read(params()).unwrap();
    let cut = tmpdir().join("cut.params");
    std::fs::write(&cut, &full[..full.len() - 100]).unwrap();
    let e = SRS::try_new(cut, false)
        .err()
        .expect("a truncated file is an error");
    assert!(e.to_string().contains("cut.params"), "{}", e);
    assert_eq!(e.code, 3, "CUZK_ERR_FORMAT: {}", e);

    let srs = SRS::try_new(params(), false).unwrap();
    let c = circuit();
    let mut rng = Rng(42);
    let s = synthesize(&c, &witness(rng.fr(), rng.fr()));
    let zero = [Fr::default()];

    // One aux variable too few: refused before any work, naming the field.
    let mut a = assignment(&s);
    a.aux_assignment_size -= 1;
    a.a_aux_bit_len -= 1;
    a.b_aux_bit_len -= 1;
    let msg = panic_message(std::panic::catch_unwind(|| {
        let mut out = [Proof::default()];
        supraseal_c2::generate_groth16_proofs(&[a], &zero, &zero, &mut out, &srs);
    }));
    assert!(msg.contains("aux_size"), "{}", msg);
    assert!(!msg.contains('\n'));

    // A witness that does not satisfy the circuit: the proof would not
    // verify, so it is an error, never a proof.
    let mut bad = synthesize(&c, &witness(rng.fr(), rng.fr()));
    bad.aux[3] = bad.aux[3].add(&Fr::from_u64(1)); // t3 (C only): c stays as it was
    bad.c[3] = bad.c[3].add(&Fr::from_u64(1)); // and its constraint's c: A·B != C now
    let a = assignment(&bad);
    let msg = panic_message(std::panic::catch_unwind(|| {
        let mut out = [Proof::default()];
        supraseal_c2::generate_groth16_proofs(&[a], &zero, &zero, &mut out, &srs);
    }));
    assert!(msg.contains("circuit 0"), "{}", msg);
    assert!(!msg.contains('\n'));

    // An unloaded SRS.
    let a = assignment(&s);
    let msg = panic_message(std::panic::catch_unwind(|| {
        let mut out = [Proof::default()];
        supraseal_c2::generate_groth16_proofs(&[a], &zero, &zero, &mut out, &SRS::default());
    }));
    assert!(msg.contains("not loaded"), "{}", msg);
}

#[test]
fn cache_and_evict() {
    let p = params();
    let a = SRS::try_new(p.clone(), true).unwrap();
    let b = SRS::try_new(p.clone(), true).unwrap();
    assert!(a.same_as(&b), "the cache returns the loaded parameters");
    let c = SRS::try_new(p.clone(), false).unwrap();
    assert!(!a.same_as(&c), "without the cache: a new load");
    a.evict();
    let d = SRS::try_new(p.clone(), true).unwrap();
    assert!(!a.same_as(&d), "after evict: a new load");
    // The evicted parameters still prove (freed with their last SRS).
    let cl = a.clone();
    drop(a);
    assert!(cl.same_as(&b));
    assert_eq!(cl.path(), Some(p.to_str().unwrap()));
}

#[test]
fn pending_proofs_can_be_dropped() {
    let srs = SRS::try_new(params(), false).unwrap();
    let c = circuit();
    let mut rng = Rng(7);
    let s = synthesize(&c, &witness(rng.fr(), rng.fr()));
    let one = |v: *const Fr| vec![v];
    let (r, sv) = random_r_s(&mut rng, 1);
    let start = || {
        start_split(
            &s,
            [&one(s.a.as_ptr()), &one(s.b.as_ptr()), &one(s.c.as_ptr())],
            &one(s.inp.as_ptr()),
            &one(s.aux.as_ptr()),
            &r,
            &sv,
            &srs,
            std::ptr::null_mut(),
            -1,
        )
    };
    let h = start();
    unsafe { supraseal_c2::drop_pending_proof(h) };
    unsafe { supraseal_c2::drop_pending_proof(std::ptr::null_mut()) };
    // Room for the wrong number of proofs: a panic, and the handle is consumed.
    let h = start() as usize;
    let msg = panic_message(std::panic::catch_unwind(move || {
        let mut out = vec![Proof::default(); 2];
        supraseal_c2::finish_groth16_proof(h as *mut c_void, &mut out);
    }));
    assert!(msg.contains("room for 2 proofs, 1 were started"), "{}", msg);
}

#[test]
fn threads_share_one_srs() {
    // As bellperson proves several sectors at once: one SRS, calls at once.
    let srs = SRS::try_new(params(), false).unwrap();
    let c = circuit();
    std::thread::scope(|scope| {
        for t in 0..3u64 {
            let (srs, c) = (&srs, &c);
            scope.spawn(move || {
                let mut rng = Rng(100 + t);
                let s = synthesize(c, &witness(rng.fr(), rng.fr()));
                let (r, sv) = random_r_s(&mut rng, 1);
                let mut out = [Proof::default()];
                supraseal_c2::generate_groth16_proofs(&[assignment(&s)], &r, &sv, &mut out, srs);
                assert!(supraseal_c2::verify_groth16_proof(srs, &out[0], &s.inp[1..]).unwrap());
            });
        }
    });
}

#[test]
fn gpu_proofs_equal_cpu_proofs() {
    // The same r, s on the CPU and the GPU backend: the same proofs. Without
    // a usable GPU the load fails (CUZK_ERR_UNSUPPORTED in a build without
    // CUDA, CUZK_ERR_GPU without a device) and the comparison is not made,
    // unless SUPRASEAL_C2_REQUIRE_GPU is set (device runs), where that fails.
    let require = std::env::var_os("SUPRASEAL_C2_REQUIRE_GPU").is_some();
    let gpu = supraseal_c2::SrsOptions {
        backend: supraseal_c2::Backend::Gpu,
        ..Default::default()
    };
    let gpu = match SRS::try_new_with(params(), &gpu) {
        Ok(s) => s,
        Err(e) if !require && (e.code == 7 || e.code == 8) => {
            eprintln!("no GPU backend here ({}): GPU == CPU not compared", e);
            return;
        }
        Err(e) => panic!("GPU parameters: {}", e),
    };
    assert_eq!(
        gpu.info().unwrap().backend,
        Some(supraseal_c2::Backend::Gpu)
    );
    let cpu = supraseal_c2::SrsOptions {
        backend: supraseal_c2::Backend::Cpu,
        ..Default::default()
    };
    let cpu = SRS::try_new_with(params(), &cpu).unwrap();
    let c = circuit();
    let mut rng = Rng(99);
    let n = 3;
    let synths: Vec<Synth> = (0..n)
        .map(|_| synthesize(&c, &witness(rng.fr(), rng.fr())))
        .collect();
    let provers: Vec<Assignment<Fr>> = synths.iter().map(assignment).collect();
    let (r, s) = random_r_s(&mut rng, n);
    let mut on_gpu = vec![Proof::default(); n];
    let mut on_cpu = vec![Proof::default(); n];
    supraseal_c2::generate_groth16_proofs(&provers, &r, &s, &mut on_gpu, &gpu);
    supraseal_c2::generate_groth16_proofs(&provers, &r, &s, &mut on_cpu, &cpu);
    for i in 0..n {
        assert_eq!(proof_192(&on_gpu[i]), proof_192(&on_cpu[i]), "proof {}", i);
    }
    // Every visible device by default; Curio's gpu_index pins a call to
    // device 0 (the SRS is on it) or, for a device it is not on, spreads it:
    // the same proofs either way.
    let info = gpu.info().unwrap();
    assert!(
        info.n_devices >= 1 && info.workers >= info.n_devices,
        "{:?}",
        info
    );
    let s0 = &synths[0];
    let (pa, pb, pc, pi, px): (Vec<_>, Vec<_>, Vec<_>, Vec<_>, Vec<_>) = (
        synths.iter().map(|s| s.a.as_ptr()).collect(),
        synths.iter().map(|s| s.b.as_ptr()).collect(),
        synths.iter().map(|s| s.c.as_ptr()).collect(),
        synths.iter().map(|s| s.inp.as_ptr()).collect(),
        synths.iter().map(|s| s.aux.as_ptr()).collect(),
    );
    for gpu_index in [0, 1000] {
        let h = start_split(
            s0,
            [&pa, &pb, &pc],
            &pi,
            &px,
            &r,
            &s,
            &gpu,
            std::ptr::null_mut(),
            gpu_index,
        );
        let mut out = vec![Proof::default(); n];
        supraseal_c2::finish_groth16_proof(h, &mut out);
        for i in 0..n {
            assert_eq!(
                proof_192(&out[i]),
                proof_192(&on_cpu[i]),
                "gpu_index {}, proof {}",
                gpu_index,
                i
            );
        }
    }
}
