// An independent bellperson-mode Groth16 prover on @noble/curves, to check
// cuzk's byte for byte. It reads the same files cuzk does and re-derives
// everything itself: the circom r1cs and witness are parsed here, the
// assignment is built as bellperson's synthesis builds it (the circuit's
// constraints, then input_i · 0 = 0 for each input; inputs ONE and the
// public signals; density bits for A aux, B inputs, B aux), and the proof is
// made as bellperson's prover makes it:
//   a, b, c -> ifft over omega = 7^((r-1)/n) -> coset fft (shift 7)
//   -> (a b - c) / (7^n - 1) -> icoset fft -> h[0 .. n-2]
//   A = alpha + sum A + r delta_1, B = beta_2 + sum B2 + s delta_2,
//   C = sum L + sum h H + s A + r (beta_1 + sum B1 + s delta_1) - r s delta_1.
// It then checks the proof with a pairing equation (IC from the .params).
//
//   node bp_reference.mjs <key.params> <circuit.r1cs> <witness.wtns> <r> <s> <cuzk-proof.bin> [<r> <s> <proof> ...]
// r, s: decimal or 0x-hex integers (the values cuzk was given with --r/--s).
// Exit 0 when each reference proof verifies and equals cuzk's 192 bytes;
// 1 with a one-line reason otherwise; 77 when @noble/curves is missing. A
// proof path written !path must NOT match (a control that the check fails).
// The .params points are read without noble's subgroup checks (cuzk's
// reader checks them; a bad point would fail the pairing check anyway).
import { readFileSync } from "node:fs";

let bls;
try {
    ({ bls12_381: bls } = await import("@noble/curves/bls12-381"));
} catch (e) {
    console.error("skipped: @noble/curves not installed (npm ci)");
    process.exit(77);
}
const [paramsPath, r1csPath, wtnsPath, ...triples] = process.argv.slice(2);
if (!triples.length || triples.length % 3) {
    console.error("usage: node bp_reference.mjs <key.params> <circuit.r1cs> <witness.wtns> <r> <s> <proof.bin>");
    process.exit(1);
}
const R = bls.fields.Fr.ORDER;
const G1 = bls.G1.ProjectivePoint, G2 = bls.G2.ProjectivePoint;
const mod = (x) => ((x % R) + R) % R;
const pow = (b, e) => {
    let r = 1n;
    b = mod(b);
    while (e > 0n) {
        if (e & 1n) r = (r * b) % R;
        b = (b * b) % R;
        e >>= 1n;
    }
    return r;
};
const inv = (x) => pow(x, R - 2n);
const fail = (msg) => {
    console.error("MISMATCH: " + msg);
    process.exit(1);
};
const leInt = (buf, off, n) => {
    let x = 0n;
    for (let i = n - 1; i >= 0; i--) x = (x << 8n) | BigInt(buf[off + i]);
    return x;
};

// ---- circom files (iden3 binfile: magic, version, sections of u32 type + u64 size)
function sections(path, magic) {
    const b = readFileSync(path);
    if (b.toString("latin1", 0, 4) !== magic) fail(`${path}: not a ${magic} file`);
    const n = b.readUInt32LE(8);
    const s = {};
    let o = 12;
    for (let i = 0; i < n; i++) {
        const t = b.readUInt32LE(o), size = Number(b.readBigUInt64LE(o + 4));
        s[t] = b.subarray(o + 12, o + 12 + size);
        o += 12 + size;
    }
    return s;
}
function readR1cs(path) {
    const s = sections(path, "r1cs");
    const h = s[1];
    const n8 = h.readUInt32LE(0);
    if (leInt(h, 4, n8) !== R) fail(`${path}: not over BLS12-381`);
    let o = 4 + n8;
    const nWires = h.readUInt32LE(o), nPubOut = h.readUInt32LE(o + 4), nPubIn = h.readUInt32LE(o + 8);
    const nCons = h.readUInt32LE(o + 24);
    const c = s[2];
    const cons = [];
    o = 0;
    for (let i = 0; i < nCons; i++) {
        const lcs = [];
        for (let m = 0; m < 3; m++) {
            const nt = c.readUInt32LE(o);
            o += 4;
            const lc = [];
            for (let t = 0; t < nt; t++) {
                lc.push([c.readUInt32LE(o), leInt(c, o + 4, n8)]);
                o += 4 + n8;
            }
            lcs.push(lc);
        }
        cons.push(lcs);
    }
    return { nWires, nPub: nPubOut + nPubIn, cons };
}
function readWtns(path) {
    const s = sections(path, "wtns");
    const n8 = s[1].readUInt32LE(0);
    const n = s[1].readUInt32LE(4 + n8);
    const w = [];
    for (let i = 0; i < n; i++) w.push(leInt(s[2], i * n8, n8));
    return w;
}

// ---- the .params file: VK, then H, L, A, B_G1, B_G2 (u32 big-endian counts, uncompressed points)
function readParams(path) {
    const b = readFileSync(path);
    let o = 0;
    // uncompressed zcash points: x, y big-endian (Fp2: c1 then c0), flags in byte 0
    const fp = (off, mask) => {
        const t = Buffer.from(b.subarray(off, off + 48));
        if (mask) t[0] &= 0x1f;
        return BigInt("0x" + t.toString("hex"));
    };
    const Fp2 = bls.fields.Fp2;
    const g1 = () => {
        const inf = b[o] & 0x40;
        const p = inf ? G1.ZERO : G1.fromAffine({ x: fp(o, true), y: fp(o + 48, false) });
        o += 96;
        return p;
    };
    const g2 = () => {
        const inf = b[o] & 0x40;
        const p = inf ? G2.ZERO : G2.fromAffine({
            x: Fp2.create({ c0: fp(o + 48, false), c1: fp(o, true) }),
            y: Fp2.create({ c0: fp(o + 144, false), c1: fp(o + 96, false) }),
        });
        o += 192;
        return p;
    };
    const vk = { alpha1: g1(), beta1: g1(), beta2: g2(), gamma2: g2(), delta1: g1(), delta2: g2() };
    const nic = b.readUInt32BE(o);
    o += 4;
    vk.ic = [];
    for (let i = 0; i < nic; i++) vk.ic.push(g1());
    const sec = {};
    for (const [name, f] of [["h", g1], ["l", g1], ["a", g1], ["b1", g1], ["b2", g2]]) {
        const n = b.readUInt32BE(o);
        o += 4;
        sec[name] = [];
        for (let i = 0; i < n; i++) sec[name].push(f());
    }
    if (o !== b.length) fail(`${path}: ${b.length - o} trailing bytes`);
    return { vk, ...sec };
}

// ---- radix-2 FFT over Fr
function fft(v, omega) {
    const n = v.length, a = v.slice();
    for (let i = 1, j = 0; i < n; i++) {
        let bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) [a[i], a[j]] = [a[j], a[i]];
    }
    for (let len = 2; len <= n; len <<= 1) {
        const wl = pow(omega, BigInt(n / len));
        for (let i = 0; i < n; i += len) {
            let w = 1n;
            for (let k = 0; k < len / 2; k++) {
                const u = a[i + k], t = (a[i + k + len / 2] * w) % R;
                a[i + k] = (u + t) % R;
                a[i + k + len / 2] = mod(u - t);
                w = (w * wl) % R;
            }
        }
    }
    return a;
}

const msm = (P, pts, sc) => (pts.length ? P.msm(pts, sc) : P.ZERO);

const key = readParams(paramsPath);
const cs = readR1cs(r1csPath);
const w = readWtns(wtnsPath);
if (w.length !== cs.nWires) fail("witness length");
const nInp = cs.nPub + 1;
if (key.vk.ic.length !== nInp) fail(`params have ${key.vk.ic.length} inputs, the circuit ${nInp}`);

// assignment
const dot = (lc) => lc.reduce((s, [wi, k]) => (s + k * w[wi]) % R, 0n);
const A = [], B = [], C = [];
const inA = new Set(), inB = new Set();
for (const [la, lb, lc] of cs.cons) {
    A.push(dot(la));
    B.push(dot(lb));
    C.push(dot(lc));
    for (const [wi, k] of la) if (k !== 0n) inA.add(wi);
    for (const [wi, k] of lb) if (k !== 0n) inB.add(wi);
}
for (let i = 0; i < nInp; i++) {
    A.push(w[i]);
    B.push(0n);
    C.push(0n);
}
const m = A.length;
let n = 1, logn = 0;
while (n < m) { n *= 2; logn++; }
if (key.h.length !== n - 1) fail(`params have ${key.h.length} H points, the domain is ${n}`);
while (A.length < n) { A.push(0n); B.push(0n); C.push(0n); }

// quotient, bellperson's way
const omega = pow(7n, (R - 1n) / BigInt(n)), omegaInv = inv(omega), nInv = inv(BigInt(n));
const ifft = (v) => fft(v, omegaInv).map((x) => (x * nInv) % R);
const coset = (v) => { let g = 1n; return fft(v.map((x) => { const y = (x * g) % R; g = (g * 7n) % R; return y; }), omega); };
const icoset = (v) => { const ginv = inv(7n); let g = 1n; return ifft(v).map((x) => { const y = (x * g) % R; g = (g * ginv) % R; return y; }); };
const ea = coset(ifft(A)), eb = coset(ifft(B)), ec = coset(ifft(C));
const zinv = inv(mod(pow(7n, BigInt(n)) - 1n));
const h = icoset(ea.map((x, i) => (mod(x * eb[i] - ec[i]) * zinv) % R));
if (h[n - 1] !== 0n) fail("the quotient has degree n - 1: the witness does not satisfy the circuit");

// scalars per query
const aux = w.slice(nInp);
const scA = [...w.slice(0, nInp), ...aux.filter((_, j) => inA.has(nInp + j))];
const scB = [...w.slice(0, nInp).filter((_, i) => inB.has(i)), ...aux.filter((_, j) => inB.has(nInp + j))];
if (scA.length !== key.a.length) fail(`A: ${scA.length} scalars, ${key.a.length} points`);
if (scB.length !== key.b1.length) fail(`B: ${scB.length} scalars, ${key.b1.length} points`);
if (aux.length !== key.l.length) fail(`L: ${aux.length} scalars, ${key.l.length} points`);

const vk = key.vk;
const Fp12 = bls.fields.Fp12;
const ic = msm(G1, vk.ic.slice(1), w.slice(1, nInp)).add(vk.ic[0]);
const eab = bls.pairing(vk.alpha1, vk.beta2), eic = bls.pairing(ic, vk.gamma2);
// the pairing check: e(A, B) = e(alpha, beta) e(IC(pub), gamma) e(C, delta)
const verify = (a, b, c) => Fp12.eql(bls.pairing(a, b), Fp12.mul(Fp12.mul(eab, eic), bls.pairing(c, vk.delta2)));
const sumA = msm(G1, key.a, scA), sumB2 = msm(G2, key.b2, scB), sumB1 = msm(G1, key.b1, scB);
const sumLH = msm(G1, key.l, aux).add(msm(G1, key.h, h.slice(0, n - 1)));
for (let t = 0; t < triples.length; t += 3) {
const r = mod(BigInt(triples[t])), s = mod(BigInt(triples[t + 1]));
const negate = triples[t + 2].startsWith("!");
const oursPath = negate ? triples[t + 2].slice(1) : triples[t + 2];
const mulz = (P, k) => P.multiplyUnsafe(k); // k may be 0
const pA = vk.alpha1.add(sumA).add(mulz(vk.delta1, r));
const pB = vk.beta2.add(sumB2).add(mulz(vk.delta2, s));
const b1 = vk.beta1.add(sumB1).add(mulz(vk.delta1, s));
const pC = sumLH
    .add(mulz(pA, s))
    .add(mulz(b1, r))
    .subtract(mulz(vk.delta1, (r * s) % R));
const ref = Buffer.concat([pA.toRawBytes(true), pB.toRawBytes(true), pC.toRawBytes(true)]);

if (!verify(pA, pB, pC)) fail("the reference proof does not verify");
const ours = readFileSync(oursPath);
let why = null;
if (ours.length !== 192) why = `${ours.length} bytes, not 192`;
let oa, ob, oc;
if (!why) {
    try {
        oa = G1.fromHex(ours.subarray(0, 48));
        ob = G2.fromHex(ours.subarray(48, 144));
        oc = G1.fromHex(ours.subarray(144, 192));
    } catch (e) {
        why = `noble cannot decode it: ${e.message}`;
    }
}
if (!why && !verify(oa, ob, oc)) why = "noble's pairing check fails";
if (!why && !ref.equals(ours)) why = "it differs from the reference proof";
if (negate && !why) fail(`${oursPath}: accepted, but it must not be`);
if (!negate && why) fail(`${oursPath}: ${why}`);
console.log(negate ? `ok: ${oursPath} rejected (${why})` :
    `ok: 2^${logn} domain, ${nInp} inputs, ${aux.length} aux, proof identical and valid (r = ${r})`);
}
