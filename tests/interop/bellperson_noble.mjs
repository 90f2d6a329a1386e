// Cross-check of cuzk's bellperson (zcash) point codec against @noble/curves.
//   node bellperson_noble.mjs <cuzk-bp-points binary> [N]
// 1. noble -> cuzk: N random G1 and G2 points (plus infinity, and points
//    whose y has either sort bit), encoded compressed and uncompressed by
//    noble, decoded by cuzk, which re-encodes them: both encodings must come
//    back byte-identical.
// 2. cuzk -> noble: cuzk computes k·G for random k (and k = 0) and encodes
//    it; noble must decode both encodings to its own k·G.
// 3. Mutations: random single-bit flips and random flag bytes of valid
//    encodings. cuzk must accept exactly the canonical encodings of subgroup
//    points: accept <=> noble accepts AND noble's re-encoding is the input
//    (noble is laxer: it reduces x mod p and ignores some flag bits).
// Exit 0 when all agree; prints the first disagreement otherwise.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";

let bls12_381;
try {
    ({ bls12_381 } = await import("@noble/curves/bls12-381"));
} catch (e) {
    console.error("skipped: @noble/curves not installed (npm ci)");
    process.exit(77);
}
const bin = process.argv[2];
const N = Number(process.argv[3] || 40);
const hex = (b) => Buffer.from(b).toString("hex");
const G = { g1: bls12_381.G1.ProjectivePoint, g2: bls12_381.G2.ProjectivePoint };
const order = bls12_381.fields.Fr.ORDER;
const rnd = () => BigInt("0x" + hex(randomBytes(40))) % order;

function run(lines) {
    const r = spawnSync(bin, [], { input: lines.join("\n") + "\n", maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`cuzk-bp-points exited ${r.status}: ${r.stderr}`);
    return r.stdout.toString().trim().split("\n");
}

let fail = 0;
const bad = (msg) => { if (fail++ < 5) console.error("MISMATCH:", msg); };

// ---- 1. noble encodes, cuzk decodes
const pts = [];
let sorts = { g1: [0, 0], g2: [0, 0] };
for (const g of ["g1", "g2"]) {
    pts.push([g, G[g].ZERO]);
    for (let i = 0; i < N; i++) {
        const P = G[g].BASE.multiply(rnd() || 1n);
        pts.push([g, P]);
        sorts[g][(P.toRawBytes(true)[0] >> 5) & 1]++;
    }
}
const req = [];
for (const [g, P] of pts) {
    req.push(`dec ${g} ${hex(P.toRawBytes(true))}`);
    req.push(`dec ${g} ${hex(P.toRawBytes(false))}`);
}
let out = run(req);
pts.forEach(([g, P], i) => {
    const want = `OK ${hex(P.toRawBytes(false))} ${hex(P.toRawBytes(true))}`;
    for (const k of [0, 1])
        if (out[2 * i + k] !== want) bad(`${g} point ${i} (${k ? "uncompressed" : "compressed"}): ${out[2 * i + k]}`);
});
for (const g of ["g1", "g2"])
    if (!sorts[g][0] || !sorts[g][1]) bad(`${g}: the random points did not cover both sort bits`);

// ---- 2. cuzk encodes, noble decodes
const ks = [0n];
for (let i = 0; i < N; i++) ks.push(rnd());
const req2 = [];
for (const g of ["g1", "g2"]) for (const k of ks) req2.push(`gen ${g} ${k.toString(16).padStart(64, "0")}`);
out = run(req2);
let idx = 0;
for (const g of ["g1", "g2"])
    for (const k of ks) {
        const [c, u] = out[idx++].split(" ");
        const want = k === 0n ? G[g].ZERO : G[g].BASE.multiply(k);
        for (const h of [c, u]) {
            let P;
            try { P = G[g].fromHex(h); } catch (e) { bad(`${g} k=${k}: noble rejects cuzk's ${h}: ${e.message}`); continue; }
            if (!P.equals(want)) bad(`${g} k=${k}: cuzk's encoding ${h} is another point`);
        }
    }

// ---- 3. mutations: cuzk accepts exactly the canonical encodings noble accepts
const muts = [];
for (const [g, P] of pts) {
    for (const comp of [true, false]) {
        const b = P.toRawBytes(comp);
        for (let t = 0; t < 4; t++) {
            const m = Uint8Array.from(b);
            const bit = randomBytes(2).readUInt16BE() % (8 * m.length);
            m[bit >> 3] ^= 1 << (bit & 7);
            muts.push([g, m]);
        }
        for (const f of [0x00, 0x20, 0x40, 0x60, 0x80, 0xa0, 0xc0, 0xe0]) {
            const m = Uint8Array.from(b);
            m[0] = (m[0] & 0x1f) | f;
            muts.push([g, m]);
            // x >= p: the same low bits with the top of x set (cuzk: range error)
            const m2 = Uint8Array.from(m);
            m2[0] |= 0x1f;
            muts.push([g, m2]);
        }
    }
}
out = run(muts.map(([g, m]) => `dec ${g} ${hex(m)}`));
let accepted = 0, rejected = 0;
muts.forEach(([g, m], i) => {
    let canon = false;
    try {
        const P = G[g].fromHex(hex(m));
        canon = hex(P.toRawBytes(m.length === (g === "g1" ? 48 : 96))) === hex(m);
    } catch (e) { canon = false; }
    const ours = out[i].startsWith("OK");
    if (ours) accepted++; else rejected++;
    if (ours !== canon) bad(`${g} ${hex(m)}: cuzk ${out[i]}, noble canonical=${canon}`);
});
if (!accepted || !rejected) bad(`mutations: accepted ${accepted}, rejected ${rejected} (expected both)`);

if (fail) { console.error(`${fail} mismatches`); process.exit(1); }
console.log(`ok: ${pts.length} noble points, ${2 * ks.length} cuzk points, ${muts.length} mutations (${accepted} accepted)`);
