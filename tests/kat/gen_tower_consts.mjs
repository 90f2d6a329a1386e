// Prints the Frobenius coefficient tables used by src/field/tower_impl.h, as
// C initialisers in Montgomery form, for src/curve/<curve>_pairing.c.
//   node tests/kat/gen_tower_consts.mjs
// gamma[k-1][i-1] = xi^(i·(p^k - 1)/6) in Fp2 (k = 1..3, i = 1..5), with
// xi = 9+u (BN254) or 1+u (BLS12-381), u^2 = -1. Plain BigInt arithmetic; the
// unit test re-derives every entry with our own Fp2 pow, so a typo here fails.
const curves = {
  bn254: { p: 21888242871839275222246405745257275088696311157297823662689037894645226208583n, xi0: 9n, limbs: 4 },
  bls12_381: { p: 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn, xi0: 1n, limbs: 6 },
};
const mod = (a, p) => ((a % p) + p) % p;
function f2mul(a, b, p) {
  return [mod(a[0] * b[0] - a[1] * b[1], p), mod(a[0] * b[1] + a[1] * b[0], p)];
}
function f2pow(a, e, p) {
  let r = [1n, 0n];
  for (let i = BigInt(e.toString(2).length) - 1n; i >= 0n; i--) {
    r = f2mul(r, r, p);
    if ((e >> i) & 1n) r = f2mul(r, a, p);
  }
  return r;
}
function limbs(v, n) {
  const out = [];
  for (let i = 0; i < n; i++) { out.push('0x' + (v & 0xffffffffffffffffn).toString(16).padStart(16, '0') + 'ULL'); v >>= 64n; }
  return '{{' + out.join(', ') + '}}';
}
for (const [name, c] of Object.entries(curves)) {
  const R = 1n << BigInt(64 * c.limbs);
  const mont = (v) => limbs(mod(v * R, c.p), c.limbs);
  const xi = [c.xi0, 1n];
  console.log(`/* ${name}: gamma[k-1][i-1] = xi^(i(p^k-1)/6), xi = ${c.xi0}+u (Montgomery). */`);
  console.log(`static const ${name}_fp2_t ${name.toUpperCase()}_FROB_GAMMA[3][5] = {`);
  for (let k = 1n; k <= 3n; k++) {
    console.log('    {');
    for (let i = 1n; i <= 5n; i++) {
      const e = (i * (c.p ** k - 1n)) / 6n;
      const g = f2pow(xi, e, c.p);
      console.log(`        {${mont(g[0])},\n         ${mont(g[1])}},`);
    }
    console.log('    },');
  }
  console.log('};\n');
}
