// Known-answer vectors for the field and curve layers, computed with
// @noble/curves (an implementation independent of ours).
// Run from the repository root:  node tests/kat/gen_field_curve_kat.mjs
// Writes tests/data/kat/{field,fp2,g1,g2}_<curve>*.txt. Deterministic: all
// randomness comes from SHA-256 of a fixed seed and a counter.
//
// Line format: one vector per line, "<op> <decimal>...", '#' starts a comment.
// Field files (fr/fp):   mul a b r | add a b r | sub a b r | neg a r |
//                        inv a r | sqrt a r (r = one root; "none" if a is a
//                        non-square) | pow a e r
// Fp2 files: same ops, every element written as "c0 c1"; sqrt a r|none.
// Group files (G1: coordinate = 1 number, G2: coordinate = c0 c1; the
// infinity point is x = y = 0):
//   add P Q R | dbl P R | mul P k R (k any non-negative integer) |
//   gen k R (R = k·G) | nonsub P (on curve, outside the r-torsion subgroup) |
//   sub P (in the subgroup, not the generator's small multiples)
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { bn254 } from "@noble/curves/bn254";
import { bls12_381 } from "@noble/curves/bls12-381";

const OUT = new URL("../data/kat/", import.meta.url);
mkdirSync(OUT, { recursive: true });

let counter = 0n;
function rnd(bits) {
  // Uniform-enough bigint of `bits` bits from SHA-256(seed || counter) blocks.
  let hex = "";
  while (hex.length * 4 < bits) {
    hex += createHash("sha256").update(`cuzk-kat-v1:${counter++}`).digest("hex");
  }
  return BigInt("0x" + hex) & ((1n << BigInt(bits)) - 1n);
}
const rndMod = (m) => rnd(m.toString(2).length + 64) % m;

function fieldVectors(F, n) {
  const p = F.ORDER;
  const specials = [0n, 1n, 2n, p - 1n, p - 2n, (p - 1n) / 2n];
  const pick = (i) => (i < specials.length ? specials[i] : rndMod(p));
  const L = [];
  for (let i = 0; i < n; i++) {
    const a = pick(i), b = pick((i * 7 + 3) % (n + 3));
    L.push(`mul ${a} ${b} ${F.mul(a, b)}`);
    L.push(`add ${a} ${b} ${F.add(a, b)}`);
    L.push(`sub ${a} ${b} ${F.sub(a, b)}`);
    L.push(`neg ${a} ${F.neg(a)}`);
    L.push(`inv ${a} ${a === 0n ? 0n : F.inv(a)}`);
    const isSq = a === 0n || F.pow(a, (p - 1n) / 2n) === 1n;
    L.push(`sqrt ${a} ${isSq ? F.sqrt(a) : "none"}`);
    const sq = F.sqr(pick(i + 1)); // a guaranteed square too
    L.push(`sqrt ${sq} ${F.sqrt(sq)}`);
    const e = rnd(64 + (i % 3) * 100);
    L.push(`pow ${a} ${e} ${F.pow(a, e)}`);
  }
  return L;
}

function fp2Vectors(F2, n) {
  const p = F2.Fp.ORDER;
  const f2 = (a) => `${a.c0} ${a.c1}`;
  const rnd2 = () => F2.create({ c0: rndMod(p), c1: rndMod(p) });
  const specials = [F2.ZERO, F2.ONE, F2.create({ c0: 0n, c1: 1n }), F2.create({ c0: p - 1n, c1: 0n }),
                    F2.create({ c0: 5n, c1: 0n }), F2.create({ c0: 0n, c1: p - 3n })];
  const L = [];
  const q12 = (p * p - 1n) / 2n;
  for (let i = 0; i < n; i++) {
    const a = i < specials.length ? specials[i] : rnd2(), b = rnd2();
    L.push(`mul ${f2(a)} ${f2(b)} ${f2(F2.mul(a, b))}`);
    L.push(`add ${f2(a)} ${f2(b)} ${f2(F2.add(a, b))}`);
    L.push(`sub ${f2(a)} ${f2(b)} ${f2(F2.sub(a, b))}`);
    L.push(`neg ${f2(a)} ${f2(F2.neg(a))}`);
    L.push(`sqr ${f2(a)} ${f2(F2.sqr(a))}`);
    L.push(`inv ${f2(a)} ${f2(F2.is0(a) ? F2.ZERO : F2.inv(a))}`);
    const isSq = F2.is0(a) || F2.eql(F2.pow(a, q12), F2.ONE);
    L.push(`sqrt ${f2(a)} ${isSq ? f2(F2.sqrt(a)) : "none"}`);
    const sq = F2.sqr(rnd2());
    L.push(`sqrt ${f2(sq)} ${f2(F2.sqrt(sq))}`);
    const e = rnd(64 + (i % 3) * 100);
    L.push(`pow ${f2(a)} ${e} ${f2(F2.pow(a, e))}`);
  }
  return L;
}

function groupVectors(Pt, r, fmtF, nonsubPoints) {
  const fmt = (P) => {
    if (P.is0()) return `${fmtF(null)} ${fmtF(null)}`;
    const { x, y } = P.toAffine();
    return `${fmtF(x)} ${fmtF(y)}`;
  };
  const G = Pt.BASE;
  const mulU = (P, k) => (k % r === 0n ? Pt.ZERO : P.multiplyUnsafe(k % r));
  const L = [];
  for (const k of [0n, 1n, 2n, 3n, 4n, 5n, 16n, 17n, r - 2n, r - 1n, r, r + 1n, 2n * r + 5n,
                   (1n << 256n) - 1n, (1n << 64n) + 1n]) {
    L.push(`gen ${k} ${fmt(mulU(G, k))}`);
  }
  for (let i = 0; i < 6; i++) { const k = rndMod(r); L.push(`gen ${k} ${fmt(mulU(G, k))}`); }
  const pts = [];
  for (let i = 0; i < 8; i++) pts.push(G.multiply(rndMod(r - 1n) + 1n));
  for (let i = 0; i < 8; i++) {
    const P = pts[i], Q = pts[(i + 3) % 8];
    L.push(`add ${fmt(P)} ${fmt(Q)} ${fmt(P.add(Q))}`);
    L.push(`dbl ${fmt(P)} ${fmt(P.double())}`);
    const k = rnd(256);
    L.push(`mul ${fmt(P)} ${k} ${fmt(mulU(P, k))}`);
    L.push(`sub ${fmt(P)}`);
  }
  const P = pts[0];
  L.push(`add ${fmt(P)} ${fmt(P)} ${fmt(P.double())}`);           // P + P
  L.push(`add ${fmt(P)} ${fmt(P.negate())} ${fmt(Pt.ZERO)}`);     // P + (-P)
  L.push(`add ${fmt(P)} ${fmt(Pt.ZERO)} ${fmt(P)}`);              // P + O
  L.push(`add ${fmt(Pt.ZERO)} ${fmt(P)} ${fmt(P)}`);              // O + P
  L.push(`add ${fmt(Pt.ZERO)} ${fmt(Pt.ZERO)} ${fmt(Pt.ZERO)}`);
  L.push(`dbl ${fmt(Pt.ZERO)} ${fmt(Pt.ZERO)}`);
  for (const Q of nonsubPoints) {
    if (Q.isTorsionFree()) throw new Error("expected a point outside the subgroup");
    L.push(`nonsub ${fmt(Q)}`);
    // arithmetic on the whole curve group E, outside the subgroup
    L.push(`add ${fmt(Q)} ${fmt(P)} ${fmt(Q.add(P))}`);
    L.push(`dbl ${fmt(Q)} ${fmt(Q.double())}`);
    const k = rnd(200);
    L.push(`mul ${fmt(Q)} ${k} ${fmt(Q.multiplyUnsafe(k))}`);
  }
  return L;
}

// Points on the curve but (with overwhelming probability) not in the subgroup:
// random x, y = sqrt(x^3 + b).
function liftRandom(Pt, F, rndF, count) {
  const b = Pt.CURVE ? Pt.CURVE().b : undefined;
  const out = [];
  while (out.length < count) {
    const x = rndF();
    const rhs = F.add(F.mul(F.sqr(x), x), b);
    let y;
    try { y = F.sqrt(rhs); } catch { continue; }
    if (!F.eql(F.sqr(y), rhs)) continue;
    const Q = new Pt(x, y, F.ONE);
    if (!Q.isTorsionFree()) out.push(Q);
  }
  return out;
}

function writeFile(name, header, lines) {
  writeFileSync(new URL(name, OUT), `# ${header}\n# generated by tests/kat/gen_field_curve_kat.mjs (@noble/curves)\n` + lines.join("\n") + "\n");
}

for (const [cname, c] of [["bn254", bn254], ["bls12_381", bls12_381]]) {
  const { Fp, Fr, Fp2 } = c.fields;
  writeFile(`field_${cname}_fp.txt`, `${cname} Fp`, fieldVectors(Fp, 16));
  writeFile(`field_${cname}_fr.txt`, `${cname} Fr`, fieldVectors(Fr, 16));
  writeFile(`fp2_${cname}.txt`, `${cname} Fp2`, fp2Vectors(Fp2, 14));
  const G1 = c.G1.ProjectivePoint ?? c.G1.Point;
  const G2 = c.G2.ProjectivePoint ?? c.G2.Point;
  const r = Fr.ORDER;
  const p = Fp.ORDER;
  const f1 = (x) => (x === null ? "0" : `${x}`);
  const f2 = (x) => (x === null ? "0 0" : `${x.c0} ${x.c1}`);
  const ns1 = cname === "bn254" ? [] : liftRandom(G1, Fp, () => rndMod(p), 3);
  const ns2 = liftRandom(G2, Fp2, () => Fp2.create({ c0: rndMod(p), c1: rndMod(p) }), 3);
  writeFile(`g1_${cname}.txt`, `${cname} G1`, groupVectors(G1, r, f1, ns1));
  writeFile(`g2_${cname}.txt`, `${cname} G2`, groupVectors(G2, r, f2, ns2));
}
