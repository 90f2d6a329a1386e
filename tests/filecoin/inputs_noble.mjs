// Independent re-derivation of `cuzk filecoin inputs` (PoRep, Window and
// Winning PoSt) in JavaScript from rust-fil-proofs' rules, with SHA-256 and
// BLAKE2b from @noble/hashes and a ChaCha8 written here (checked against the
// published zero-key ChaCha8 keystream), for random configurations; the
// outputs must be identical. The polka-storage known answers
// (kat_polka.sh) check the same derivation against real proofs.
//   node inputs_noble.mjs <cuzk> [configurations per kind, default 4]
// Exit 0 all equal, 1 a difference, 77 when @noble/hashes is missing.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";

let sha256, blake2b;
try {
    ({ sha256 } = await import("@noble/hashes/sha2"));
    ({ blake2b } = await import("@noble/hashes/blake2b"));
} catch (e) {
    console.error("skipped: @noble/hashes not installed (npm ci)");
    process.exit(77);
}
const cuzk = process.argv[2];
const N = Number(process.argv[3] || 4);
const R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
const cat = (...a) => Buffer.concat(a.map((x) => Buffer.from(x)));
const le = (v, n) => { const b = Buffer.alloc(n); for (let i = 0; i < n; i++) b[i] = Number((BigInt(v) >> BigInt(8 * i)) & 255n); return b; };
const be = (v, n) => Buffer.from(le(v, n)).reverse();
const leNum = (b) => { let v = 0n; for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]); return v; };
const beNum = (b) => { let v = 0n; for (const x of b) v = (v << 8n) | BigInt(x); return v; };

// ---- ChaCha8 (rand_chacha ChaCha8Rng: 64-bit block counter, stream 0)
function chacha8Block(key, counter) {
    const s = new Uint32Array(16);
    s.set([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);
    for (let i = 0; i < 8; i++) s[4 + i] = key.readUInt32LE(4 * i);
    s[12] = Number(counter & 0xffffffffn); s[13] = Number(counter >> 32n); s[14] = 0; s[15] = 0;
    const x = Uint32Array.from(s);
    const rot = (v, c) => ((v << c) | (v >>> (32 - c))) >>> 0;
    const qr = (a, b, c, d) => {
        x[a] = (x[a] + x[b]) >>> 0; x[d] = rot(x[d] ^ x[a], 16);
        x[c] = (x[c] + x[d]) >>> 0; x[b] = rot(x[b] ^ x[c], 12);
        x[a] = (x[a] + x[b]) >>> 0; x[d] = rot(x[d] ^ x[a], 8);
        x[c] = (x[c] + x[d]) >>> 0; x[b] = rot(x[b] ^ x[c], 7);
    };
    for (let r = 0; r < 4; r++) {
        qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15);
        qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14);
    }
    return x.map((v, i) => (v + s[i]) >>> 0);
}
class ChaCha8Rng {
    constructor(seed) { this.key = Buffer.from(seed); this.block = 0n; this.buf = null; this.pos = 16; }
    u32() { if (this.pos === 16) { this.buf = chacha8Block(this.key, this.block++); this.pos = 0; } return BigInt(this.buf[this.pos++]); }
    u64() { const lo = this.u32(); return lo | (this.u32() << 32n); }
}
{
    const ks = chacha8Block(Buffer.alloc(32), 0n);
    const hex = Buffer.from(ks.buffer).toString("hex").slice(0, 64);
    if (hex !== "3e00ef2f895f40d67f5bb8e81f09a5a12c840ec3ce9a7f3b181be188ef711a1e") {
        console.error("ChaCha8 zero-key test vector mismatch:", hex);
        process.exit(1);
    }
}

// ---- storage-proofs rules
const SECTORS = { "2KiB": [2048n, 1, 2, 2], "8MiB": [1n << 23n, 1, 2, 2], "512MiB": [1n << 29n, 1, 2, 2],
                  "32GiB": [1n << 35n, 10, 176, 2349], "64GiB": [1n << 36n, 10, 176, 2300] };
const domainSeed = (dst, porepId) => sha256(cat(Buffer.from(dst), porepId));

function drgParents(seed28, api, node) {
    if (node < 2n) return [0n, 0n, 0n, 0n, 0n, 0n];
    const rng = new ChaCha8Rng(cat(seed28, le(node, 4)));
    const mp = 5n, meta = node * mp;
    const nBuckets = BigInt(Math.ceil(Math.log2(Number(meta))));
    const out = new Array(6).fill(0n);
    const first = api === "1.0.0" ? 0 : 1;
    for (let k = 0; k < 5; k++) {
        const bucket = (rng.u64() % nBuckets) + 1n;
        const largest = meta < (1n << bucket) ? meta : 1n << bucket;
        const smallest = (largest >> 1n) > 2n ? largest >> 1n : 2n;
        const dist = smallest + (rng.u64() % (largest - smallest + 1n));
        const mapped = (meta - dist) / mp;
        out[first + k] = mapped === node ? node - 1n : mapped;
    }
    out[api === "1.0.0" ? 5 : 0] = node - 1n;
    return out;
}
function feistelSetup(n, porepId) {
    const s = domainSeed("Filecoin_Feistel", porepId);
    const keys = [0, 1, 2, 3].map((k) => leNum(s.subarray(8 * k, 8 * k + 8)));
    let p = 4n, log4 = 1n;
    while (p < n) { p *= 4n; log4++; }
    return { keys, n, half: log4, rmask: (1n << log4) - 1n, lmask: ((1n << log4) - 1n) << log4 };
}
function feistelEncode(f, index) {
    let left = (index & f.lmask) >> f.half, right = index & f.rmask;
    for (let k = 0; k < 3; k++) {
        const h = blake2b(cat(be(right, 8), be(f.keys[k], 8)));
        const r = left ^ (beNum(h.subarray(0, 8)) & f.rmask);
        left = right; right = r;
    }
    return (left << f.half) | right;
}
function expParents(f, api, node) {
    const out = [];
    for (let i = 0n; i < 8n; i++) {
        let u = feistelEncode(f, node * 8n + i);
        while (u >= f.n) u = feistelEncode(f, u);
        out.push(api === "1.0.0" ? (u & 0xffffffffn) / 8n : u / 8n);
    }
    return out;
}
function porep(c) {
    const [bytes, parts, minCh] = SECTORS[c.size];
    const nodes = bytes / 32n, cpp = Math.ceil(minCh / parts);
    const rid = Buffer.from(sha256(cat(c.prover, be(c.sector, 8), c.ticket, c.commD, c.porepId)));
    rid[31] &= 0x3f;
    const drgSeed = Buffer.from(domainSeed("Filecoin_DRSample", c.porepId)).subarray(0, 28);
    const f = feistelSetup(nodes * 8n, c.porepId);
    const all = [];
    for (let k = 0; k < parts; k++) {
        const v = [leNum(rid), leNum(c.commD), leNum(c.commR)];
        for (let i = 0; i < cpp; i++) {
            const h = sha256(cat(rid, c.seed, le(cpp * k + i, 4)));
            const ch = (leNum(h) % (nodes - 1n)) + 1n;
            v.push(ch, ...drgParents(drgSeed, c.api, ch), ...expParents(f, c.api, ch), ch, ch, ch);
        }
        all.push(v);
    }
    return all;
}
function post(c) {
    const [bytes, , , windowSectors] = SECTORS[c.size];
    const per = c.winning ? 1 : windowSectors, nch = c.winning ? 66 : 10;
    const sectors = [...c.sectors].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const all = [];
    for (let k = 0; k * per < sectors.length; k++) {
        const chunk = sectors.slice(k * per, (k + 1) * per), v = [];
        chunk.forEach(([id, commR], i) => {
            v.push(leNum(commR));
            for (let n = 0; n < nch; n++) {
                const ci = c.api === "1.2.0" ? BigInt(n) : BigInt((k * per + i) * nch + n);
                const h = sha256(cat(c.randomness, le(id, 8), le(ci, 8)));
                v.push(leNum(h.subarray(0, 8)) % (bytes / 32n));
            }
        });
        const ps = 1 + nch;
        while (v.length < per * ps) v.push(...v.slice(v.length - ps));
        all.push(v);
    }
    return all;
}

// ---- random configurations vs cuzk
const fr = () => { const b = randomBytes(32); b[31] &= 0x3f; return b; };
const pick = (a) => a[randomBytes(1)[0] % a.length];
const hex = (b) => Buffer.from(b).toString("hex");
let fail = 0, total = 0;
function compare(args, want, what) {
    const r = spawnSync(cuzk, ["filecoin", "inputs", ...args], { maxBuffer: 1 << 28 });
    total++;
    if (r.status !== 0) { fail++; console.error(`${what}: cuzk exited ${r.status}: ${r.stderr}`); return; }
    let got = JSON.parse(r.stdout.toString());
    if (!Array.isArray(got[0])) got = [got];
    const w = want.map((p) => p.map(String));
    if (JSON.stringify(got) !== JSON.stringify(w)) {
        fail++;
        const flat = got.flat(), wf = w.flat();
        const i = flat.findIndex((x, j) => x !== wf[j]);
        console.error(`${what}: differs (partitions ${got.length} vs ${w.length}; first at ${i}: ${flat[i]} vs ${wf[i]}) for ${args.join(" ")}`);
    }
}
const apis = ["1.0.0", "1.1.0", "1.2.0"];
const sizes = ["2KiB", "8MiB", "512MiB", "32GiB", "64GiB"];
for (let t = 0; t < N; t++) {
    const c = { size: sizes[t % sizes.length], api: pick(apis), porepId: randomBytes(32), prover: fr(),
                sector: leNum(randomBytes(8)), ticket: randomBytes(32), seed: randomBytes(32), commR: fr(), commD: fr() };
    if (t === 0) c.porepId = Buffer.alloc(32); // polka-storage's porep id
    compare(["porep", "--sector-size", c.size, "--api-version", c.api, "--porep-id", hex(c.porepId), "--prover-id", hex(c.prover),
             "--sector", c.sector.toString(), "--ticket", hex(c.ticket), "--seed", hex(c.seed), "--comm-r", hex(c.commR),
             "--comm-d", hex(c.commD)], porep(c), `porep ${c.size} ${c.api}`);
}
for (let t = 0; t < N; t++) {
    const winning = t % 2 === 1;
    const size = winning ? pick(sizes) : pick(["2KiB", "2KiB", "8MiB", "32GiB"]);
    const n = winning ? 1 : 1 + (randomBytes(1)[0] % 5);
    const sectors = Array.from({ length: n }, (_, i) => [BigInt(1000 * i) + (leNum(randomBytes(4)) % 1000n), fr()]);
    const c = { size, api: pick(apis), winning, randomness: fr(), sectors };
    compare([winning ? "winning-post" : "window-post", "--sector-size", size, "--api-version", c.api,
             "--randomness", hex(c.randomness), ...sectors.map(([id, cr]) => `${id}:${hex(cr)}`)], post(c),
            `${winning ? "winning" : "window"}-post ${size} ${c.api} (${n} sectors)`);
}
if (fail) { console.error(`${fail} of ${total} configurations differ`); process.exit(1); }
console.log(`ok: ${total} random configurations identical (PoRep: ${N}, PoSt: ${N})`);
