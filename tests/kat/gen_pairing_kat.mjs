// Known-answer vectors for the Fp12 tower and the pairing, from @noble/curves
// (an independent implementation; its tower is ours: Fp2 = Fp[u]/(u^2+1),
// Fp6 = Fp2[v]/(v^3 - xi), Fp12 = Fp6[w]/(w^2 - v)).
//   node tests/kat/gen_pairing_kat.mjs   (from the repo root)
// writes tests/data/kat/pairing_bn254.json and pairing_bls12_381.json.
// Fp12 values are 12 decimal strings in snarkjs's vk_alphabeta_12 order
// (c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1); points are affine decimals,
// G2 as [[x.c0, x.c1], [y.c0, y.c1]]. Inputs are derived from SHA-512 of a
// label, so the files are reproducible.
// Note: noble's pairing (like snarkjs) is a fixed power of the reduced
// pairing: e^(2x(6x^2+3x+1)) on BN254, e^3 on BLS12-381 (src/curve/pairing_impl.h).
import { createHash } from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import { bn254 } from '@noble/curves/bn254';
import { bls12_381 } from '@noble/curves/bls12-381';

const h = (label) => BigInt('0x' + createHash('sha512').update('cuzk-pairing-kat/' + label).digest('hex'));
const s = (x) => x.toString();
const f12 = (e) => [e.c0.c0.c0, e.c0.c0.c1, e.c0.c1.c0, e.c0.c1.c1, e.c0.c2.c0, e.c0.c2.c1,
  e.c1.c0.c0, e.c1.c0.c1, e.c1.c1.c0, e.c1.c1.c1, e.c1.c2.c0, e.c1.c2.c1].map(s);

function gen(name, c) {
  const { Fp, Fp2, Fp6, Fp12 } = c.fields;
  const p = Fp.ORDER, r = c.params.r;
  const G1 = c.G1.Point, G2 = c.G2.Point;
  const fe = (label) => h(name + '/' + label) % p;
  const f2 = (label) => Fp2.create({ c0: fe(label + '.0'), c1: fe(label + '.1') });
  const f6 = (label) => Fp6.create({ c0: f2(label + '.0'), c1: f2(label + '.1'), c2: f2(label + '.2') });
  const f12r = (label) => Fp12.create({ c0: f6(label + '.0'), c1: f6(label + '.1') });
  const scalar = (label) => 1n + (h(name + '/' + label) % (r - 1n));
  const g1 = (P) => { const a = P.toAffine(); return [s(a.x), s(a.y)]; };
  const g2 = (Q) => { const a = Q.toAffine(); return [[s(a.x.c0), s(a.x.c1)], [s(a.y.c0), s(a.y.c1)]]; };

  // Tower arithmetic.
  const tower = [];
  for (let i = 0; i < 3; i++) {
    const a = f12r('tower/a' + i), b = f12r('tower/b' + i);
    tower.push({
      a: f12(a), b: f12(b), mul: f12(Fp12.mul(a, b)), sqr: f12(Fp12.sqr(a)), inv: f12(Fp12.inv(a)),
      frob1: f12(Fp12.frobeniusMap(a, 1)), frob2: f12(Fp12.frobeniusMap(a, 2)), frob3: f12(Fp12.frobeniusMap(a, 3)),
      final_exp: f12(Fp12.finalExponentiate(a)),
    });
  }

  // Pairings of random multiples of the generators, and of the generators.
  const pairings = [];
  const gens = { p: G1.BASE, q: G2.BASE };
  pairings.push({ p: g1(gens.p), q: g2(gens.q), e: f12(c.pairing(gens.p, gens.q)) });
  for (let i = 0; i < 4; i++) {
    const P = G1.BASE.multiply(scalar('pair/a' + i)), Q = G2.BASE.multiply(scalar('pair/b' + i));
    pairings.push({ p: g1(P), q: g2(Q), e: f12(c.pairing(P, Q)) });
  }

  // One product of three pairings (one final exponentiation).
  const ps = [], qs = [];
  for (let i = 0; i < 3; i++) {
    ps.push(G1.BASE.multiply(scalar('multi/a' + i)));
    qs.push(G2.BASE.multiply(scalar('multi/b' + i)));
  }
  const prod = c.pairingBatch(ps.map((P, i) => ({ g1: P, g2: qs[i] })));
  const multi = { ps: ps.map(g1), qs: qs.map(g2), e: f12(prod) };

  return { curve: name, source: '@noble/curves 1.9.7 via tests/kat/gen_pairing_kat.mjs', tower, pairings, multi };
}

mkdirSync('tests/data/kat', { recursive: true });
for (const [name, c] of [['bn254', bn254], ['bls12_381', bls12_381]]) {
  const out = gen(name, c);
  writeFileSync(`tests/data/kat/pairing_${name}.json`, JSON.stringify(out, null, 1) + '\n');
  console.log('wrote', `tests/data/kat/pairing_${name}.json`);
}
