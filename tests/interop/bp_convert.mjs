// snarkjs BLS12-381 files -> bellperson files, encoded by @noble/curves (an
// encoder independent of cuzk's), for the `verify --format bellperson` tests:
//   node bp_convert.mjs vk   vkey.json OUT.vk      verifying key (beta_g1 and delta_g1,
//                                                   unused by verification, are set to
//                                                   the G1 generator)
//   node bp_convert.mjs proof proof.json [proof2.json ...] OUT.bin
//                                                   A||B||C compressed, concatenated
//   node bp_convert.mjs vkc HEX OUT.vk              a verifying key of compressed points in the
//                                                   .vk order (polka-storage's encoding) -> .vk
//   node bp_convert.mjs hex HEX OUT                 the bytes of HEX
// Exit 77 when @noble/curves is not installed.
import fs from "node:fs";

let bls12_381;
try {
    ({ bls12_381 } = await import("@noble/curves/bls12-381"));
} catch (e) {
    console.error("skipped: @noble/curves not installed (npm ci)");
    process.exit(77);
}
const G1 = bls12_381.G1.ProjectivePoint, G2 = bls12_381.G2.ProjectivePoint, Fp2 = bls12_381.fields.Fp2;
const g1 = (v) => (BigInt(v[2]) === 0n ? G1.ZERO : G1.fromAffine({ x: BigInt(v[0]), y: BigInt(v[1]) }));
const g2 = (v) =>
    BigInt(v[2][0]) === 0n && BigInt(v[2][1]) === 0n
        ? G2.ZERO
        : G2.fromAffine({
              x: Fp2.fromBigTuple([BigInt(v[0][0]), BigInt(v[0][1])]),
              y: Fp2.fromBigTuple([BigInt(v[1][0]), BigInt(v[1][1])]),
          });
const [cmd, ...args] = process.argv.slice(2);
const parts = [];
if (cmd === "vk") {
    const vk = JSON.parse(fs.readFileSync(args[0], "utf8"));
    parts.push(g1(vk.vk_alpha_1).toRawBytes(false), G1.BASE.toRawBytes(false), g2(vk.vk_beta_2).toRawBytes(false),
        g2(vk.vk_gamma_2).toRawBytes(false), G1.BASE.toRawBytes(false), g2(vk.vk_delta_2).toRawBytes(false));
    const n = Buffer.alloc(4);
    n.writeUInt32BE(vk.IC.length);
    parts.push(n);
    for (const p of vk.IC) parts.push(g1(p).toRawBytes(false));
    fs.writeFileSync(args[1], Buffer.concat(parts));
} else if (cmd === "proof") {
    for (const f of args.slice(0, -1)) {
        const p = JSON.parse(fs.readFileSync(f, "utf8"));
        parts.push(g1(p.pi_a).toRawBytes(true), g2(p.pi_b).toRawBytes(true), g1(p.pi_c).toRawBytes(true));
    }
    fs.writeFileSync(args[args.length - 1], Buffer.concat(parts));
} else if (cmd === "vkc") {
    const b = Buffer.from(args[0], "hex");
    let o = 0;
    const take = (n) => b.subarray(o, (o += n));
    const u = (G, n) => G.fromHex(take(n).toString("hex")).toRawBytes(false);
    parts.push(u(G1, 48), u(G1, 48), u(G2, 96), u(G2, 96), u(G1, 48), u(G2, 96));
    const n = take(4);
    parts.push(n);
    for (let i = 0; i < n.readUInt32BE(); i++) parts.push(u(G1, 48));
    if (o !== b.length) throw new Error(`vkc: ${b.length - o} bytes left over`);
    fs.writeFileSync(args[1], Buffer.concat(parts));
} else if (cmd === "hex") {
    fs.writeFileSync(args[1], Buffer.from(args[0], "hex"));
} else {
    console.error("usage: bp_convert.mjs vk|proof|vkc|hex ...");
    process.exit(2);
}
