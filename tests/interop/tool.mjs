// Small helpers for the interop scripts: JSON comparison, proof/public
// tampering and .wtns surgery. Node built-ins only (proofbytes also loads the
// pinned @noble/curves), so the tests need no package beyond node_modules.
//
//   node tool.mjs jsoneq A.json B.json           exit 0 iff deep-equal (prints first difference)
//   node tool.mjs proofshape proof.json CURVE     snarkjs-style proof structure + canonical decimals
//   node tool.mjs rapidshape proof.json public.json  rapidsnark's compact layout (see `compact`)
//   node tool.mjs vkshape vk.json CURVE NPUB      verification key structure
//   node tool.mjs swap P.json Q.json KEY OUT      P with P[KEY] := Q[KEY]
//   node tool.mjs negate P.json KEY CURVE OUT     P with KEY (pi_a|pi_c) := -KEY (still on the curve)
//   node tool.mjs offcurve P.json KEY OUT         P with KEY's y += 1 (off the curve)
//   node tool.mjs nonsubgroup P.json KEY CURVE OUT  P with KEY := a point on the curve but
//                                                 outside the order-r subgroup (pi_b; pi_a on BLS12-381)
//   node tool.mjs compact P.json OUT              rapidsnark style: no "curve", compact, sorted keys
//   node tool.mjs pubadd PUB.json IDX DELTA OUT   public[IDX] += DELTA (IDX may be -1 = last); no mod r
//   node tool.mjs pubresize PUB.json N OUT        drop (N<0) or append "1" (N>0) public values
//   node tool.mjs wtnsinfo W.wtns                 prints "n8 prime nWitness"
//   node tool.mjs wtnspub W.wtns N OUT            writes w[1..N] as a public.json-style array
//   node tool.mjs wtnsbump W.wtns IDX OUT         witness value IDX (-1 = last) := value + 1 mod prime
//   node tool.mjs trunc FILE NBYTES OUT           first NBYTES bytes of FILE
//   node tool.mjs bom FILE OUT                    FILE with a UTF-8 byte-order mark in front
//   node tool.mjs nul F.json PATH OUT             the string at PATH (e.g. pi_a.0, 0) + "\u0000" + "1"
//   node tool.mjs dupkey P.json KEY Q.json first|last OUT
//                                                 P with a second KEY member holding Q[KEY], before
//                                                 (first) or after (last) P's own (JSON.parse keeps the last)
//   node tool.mjs zeros F.json PATH N OUT         the decimal string at PATH with N leading zeros
//   node tool.mjs escape F.json PATH OUT          the string at PATH with its first digit as a \u00XX escape
//   node tool.mjs proofbytes CURVE proof.json HEX [CALLDATA]
//                                                 HEX (cuzk_proof_to_bytes) equals, for bls12381,
//                                                 A||B||C compressed by @noble/curves (zcash format);
//                                                 for bn128, the first 8 words of snarkjs's
//                                                 `zkey export soliditycalldata` output in CALLDATA
import fs from "node:fs";

const CURVES = {
    bn128: {
        q: 21888242871839275222246405745257275088696311157297823662689037894645226208583n,
        r: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
    },
    bls12381: {
        q: 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn,
        r: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n,
    },
};

function die(msg) {
    process.stderr.write(`tool.mjs: ${msg}\n`);
    process.exit(2);
}
const readJson = (p) => JSON.parse(fs.readFileSync(p, "utf8"));
const writeJson = (p, v) => fs.writeFileSync(p, JSON.stringify(v, null, 1));
const curveOf = (name) => CURVES[name] || die(`unknown curve ${name}`);

// First path where a and b differ, or null.
function diff(a, b, path = "$") {
    if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null))
        return `${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
    if (Array.isArray(a)) {
        if (a.length !== b.length) return `${path}: length ${a.length} vs ${b.length}`;
        for (let i = 0; i < a.length; i++) {
            const d = diff(a[i], b[i], `${path}[${i}]`);
            if (d) return d;
        }
        return null;
    }
    if (a !== null && typeof a === "object") {
        const ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
        if (ka.join() !== kb.join()) return `${path}: keys [${ka}] vs [${kb}]`;
        for (const k of ka) {
            const d = diff(a[k], b[k], `${path}.${k}`);
            if (d) return d;
        }
        return null;
    }
    return a === b ? null : `${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
}

// A canonical decimal string below `bound`.
function checkDec(v, bound, where) {
    if (typeof v !== "string" || !/^(0|[1-9][0-9]*)$/.test(v)) die(`${where}: not a canonical decimal string: ${JSON.stringify(v)}`);
    if (BigInt(v) >= bound) die(`${where}: ${v} is not reduced (>= field modulus)`);
}
function checkG1(p, q, where) {
    if (!Array.isArray(p) || p.length !== 3) die(`${where}: expected [x, y, z]`);
    p.forEach((v, i) => checkDec(v, q, `${where}[${i}]`));
    if (p[2] !== "1") die(`${where}: z must be "1" (affine), got ${p[2]}`);
}
function checkG2(p, q, where) {
    if (!Array.isArray(p) || p.length !== 3 || p.some((c) => !Array.isArray(c) || c.length !== 2))
        die(`${where}: expected [[x0,x1],[y0,y1],[z0,z1]]`);
    p.forEach((c, i) => c.forEach((v, j) => checkDec(v, q, `${where}[${i}][${j}]`)));
    if (p[2][0] !== "1" || p[2][1] !== "0") die(`${where}: z must be ["1","0"]`);
}

// Parse a binfile container (.wtns): { sections: Map<id, {pos, size}>, buf }.
function binfile(path, magic) {
    const buf = fs.readFileSync(path);
    if (buf.length < 12 || buf.toString("latin1", 0, 4) !== magic) die(`${path}: not a ${magic} file`);
    const n = buf.readUInt32LE(8);
    const sections = new Map();
    let pos = 12;
    for (let i = 0; i < n; i++) {
        const id = buf.readUInt32LE(pos), size = Number(buf.readBigUInt64LE(pos + 4));
        pos += 12;
        if (!sections.has(id)) sections.set(id, { pos, size });
        pos += size;
    }
    return { buf, sections };
}
const leToBig = (b) => BigInt("0x" + (Buffer.from(b).reverse().toString("hex") || "0"));
function bigToLe(v, n) {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) { out[i] = Number(v & 0xffn); v >>= 8n; }
    return out;
}
function wtnsHeader(path) {
    const f = binfile(path, "wtns");
    const h = f.sections.get(1) || die(`${path}: no header section`);
    const n8 = f.buf.readUInt32LE(h.pos);
    const prime = leToBig(f.buf.subarray(h.pos + 4, h.pos + 4 + n8));
    const nWit = f.buf.readUInt32LE(h.pos + 4 + n8);
    return { ...f, n8, prime, nWit };
}

const [cmd, ...a] = process.argv.slice(2);
switch (cmd) {
case "jsoneq": {
    const d = diff(readJson(a[0]), readJson(a[1]));
    if (d) { console.log(`JSON differs at ${d}`); process.exit(1); }
    break;
}
case "proofshape": {
    const p = readJson(a[0]), { q } = curveOf(a[1]);
    checkG1(p.pi_a, q, "pi_a"); checkG2(p.pi_b, q, "pi_b"); checkG1(p.pi_c, q, "pi_c");
    if (p.protocol !== "groth16") die(`protocol: expected "groth16", got ${JSON.stringify(p.protocol)}`);
    if (p.curve !== a[1]) die(`curve: expected "${a[1]}", got ${JSON.stringify(p.curve)}`);
    break;
}
case "rapidshape": {
    // rapidsnark: nlohmann dump() = compact, keys sorted, no "curve", no newline.
    const t = fs.readFileSync(a[0], "utf8"), p = JSON.parse(t);
    if (Object.keys(p).join() !== "pi_a,pi_b,pi_c,protocol") die(`keys ${Object.keys(p)} (want pi_a,pi_b,pi_c,protocol)`);
    if (t !== JSON.stringify(p)) die(`${a[0]} is not compact JSON`);
    const u = fs.readFileSync(a[1], "utf8");
    if (u !== JSON.stringify(JSON.parse(u))) die(`${a[1]} is not compact JSON`);
    break;
}
case "vkshape": {
    const v = readJson(a[0]), { q } = curveOf(a[1]), np = Number(a[2]);
    if (v.protocol !== "groth16" || v.curve !== a[1] || v.nPublic !== np)
        die(`protocol/curve/nPublic: ${v.protocol}/${v.curve}/${v.nPublic}, expected groth16/${a[1]}/${np}`);
    checkG1(v.vk_alpha_1, q, "vk_alpha_1");
    for (const k of ["vk_beta_2", "vk_gamma_2", "vk_delta_2"]) checkG2(v[k], q, k);
    if (!Array.isArray(v.IC) || v.IC.length !== np + 1) die(`IC: expected ${np + 1} points`);
    v.IC.forEach((p, i) => checkG1(p, q, `IC[${i}]`));
    break;
}
case "swap": {
    const p = readJson(a[0]), o = readJson(a[1]);
    if (JSON.stringify(p[a[2]]) === JSON.stringify(o[a[2]])) die(`swap: ${a[2]} is identical in both proofs`);
    p[a[2]] = o[a[2]];
    writeJson(a[3], p);
    break;
}
case "negate": {
    const p = readJson(a[0]), { q } = curveOf(a[2]);
    p[a[1]][1] = ((q - BigInt(p[a[1]][1])) % q).toString();
    writeJson(a[3], p);
    break;
}
case "offcurve": {
    const p = readJson(a[0]);
    p[a[1]][1] = (BigInt(p[a[1]][1]) + 1n).toString();
    writeJson(a[2], p);
    break;
}
case "nonsubgroup": {
    // @noble/curves (independent of cuzk) finds the point and confirms it has
    // a cofactor component: smallest x = 2, 3, ... with x^3 + b a square.
    const p = readJson(a[0]), key = a[1];
    const mod = a[2] === "bn128" ? (await import("@noble/curves/bn254")).bn254
                                 : (await import("@noble/curves/bls12-381")).bls12_381;
    curveOf(a[2]);
    const G = key === "pi_b" ? mod.G2 : mod.G1, F = G.CURVE.Fp;
    let x = F.ONE, pt = null;
    for (let i = 0; i < 100 && !pt; i++) {
        x = F.add(x, F.ONE);
        const rhs = G.weierstrassEquation(x);
        let y;
        try { y = F.sqrt(rhs); } catch { continue; }
        if (!F.eql(F.sqr(y), rhs)) continue;
        const P = G.ProjectivePoint.fromAffine({ x, y });
        if (!P.isTorsionFree()) pt = P.toAffine();
    }
    if (!pt) die(`nonsubgroup: no point found for ${key} on ${a[2]} (cofactor 1?)`);
    const s2 = (e) => [e.c0.toString(), e.c1.toString()];
    p[key] = key === "pi_b" ? [s2(pt.x), s2(pt.y), ["1", "0"]] : [pt.x.toString(), pt.y.toString(), "1"];
    writeJson(a[3], p);
    break;
}
case "compact": {
    const p = readJson(a[0]);
    fs.writeFileSync(a[1], JSON.stringify({ pi_a: p.pi_a, pi_b: p.pi_b, pi_c: p.pi_c, protocol: p.protocol }));
    break;
}
case "pubadd": {
    const p = readJson(a[0]);
    const i = Number(a[1]) < 0 ? p.length + Number(a[1]) : Number(a[1]);
    if (!(i >= 0 && i < p.length)) die(`pubadd: index ${a[1]} out of range (${p.length} values)`);
    p[i] = (BigInt(p[i]) + BigInt(a[2])).toString();
    writeJson(a[3], p);
    break;
}
case "pubresize": {
    let p = readJson(a[0]);
    const n = Number(a[1]);
    p = n < 0 ? p.slice(0, p.length + n) : p.concat(Array(n).fill("1"));
    writeJson(a[2], p);
    break;
}
case "wtnsinfo": {
    const w = wtnsHeader(a[0]);
    console.log(`${w.n8} ${w.prime} ${w.nWit}`);
    break;
}
case "wtnspub": {
    const w = wtnsHeader(a[0]);
    const s = w.sections.get(2) || die(`${a[0]}: no witness section`);
    const n = Number(a[1]), out = [];
    if (n + 1 > w.nWit) die(`wtnspub: only ${w.nWit} witness values`);
    for (let i = 1; i <= n; i++) out.push(leToBig(w.buf.subarray(s.pos + i * w.n8, s.pos + (i + 1) * w.n8)).toString());
    writeJson(a[2], out);
    break;
}
case "wtnsbump": {
    const w = wtnsHeader(a[0]);
    const s = w.sections.get(2) || die(`${a[0]}: no witness section`);
    const i = Number(a[1]) < 0 ? w.nWit + Number(a[1]) : Number(a[1]);
    if (!(i >= 0 && i < w.nWit)) die(`wtnsbump: index ${a[1]} out of range`);
    const off = s.pos + i * w.n8;
    const v = (leToBig(w.buf.subarray(off, off + w.n8)) + 1n) % w.prime;
    bigToLe(v, w.n8).copy(w.buf, off);
    fs.writeFileSync(a[2], w.buf);
    break;
}
case "proofbytes": {
    const [curve, proofPath, hexPath, calldataPath] = a;
    const p = readJson(proofPath);
    const got = fs.readFileSync(hexPath, "utf8").trim();
    let want;
    if (curve === "bls12381") {
        const { bls12_381 } = await import("@noble/curves/bls12-381");
        const hex = (u8) => Buffer.from(u8).toString("hex");
        const g1 = (v) => bls12_381.G1.ProjectivePoint.fromAffine({ x: BigInt(v[0]), y: BigInt(v[1]) });
        const Fp2 = bls12_381.fields.Fp2;
        const g2 = (v) => bls12_381.G2.ProjectivePoint.fromAffine({
            x: Fp2.fromBigTuple([BigInt(v[0][0]), BigInt(v[0][1])]),
            y: Fp2.fromBigTuple([BigInt(v[1][0]), BigInt(v[1][1])]),
        });
        const A = g1(p.pi_a), B = g2(p.pi_b), C = g1(p.pi_c);
        A.assertValidity();
        B.assertValidity();
        C.assertValidity();
        want = hex(A.toRawBytes(true)) + hex(B.toRawBytes(true)) + hex(C.toRawBytes(true));
    } else if (curve === "bn128") {
        const words = (fs.readFileSync(calldataPath, "utf8").match(/0x[0-9a-fA-F]+/g) || []).slice(0, 8);
        if (words.length !== 8) die(`${calldataPath}: fewer than 8 calldata words`);
        want = words.map((w) => BigInt(w).toString(16).padStart(64, "0")).join("");
    } else die(`unknown curve ${curve}`);
    if (got !== want) {
        console.log(`proof bytes differ\n cuzk: ${got}\n want: ${want}`);
        process.exit(1);
    }
    break;
}
case "trunc": {
    fs.writeFileSync(a[2], fs.readFileSync(a[0]).subarray(0, Number(a[1])));
    break;
}
case "bom": {
    fs.writeFileSync(a[1], Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), fs.readFileSync(a[0])]));
    break;
}
case "nul":
case "zeros":
case "escape": {
    const v = readJson(a[0]);
    const keys = a[1].split(".");
    let o = v;
    for (const k of keys.slice(0, -1)) o = o[k];
    const last = keys[keys.length - 1];
    if (typeof o[last] !== "string") die(`${cmd}: ${a[1]} is not a string`);
    const mark = "\u0001MARK\u0001";
    const orig = o[last];
    o[last] = mark;
    let text = JSON.stringify(v, null, 1);
    const enc = JSON.stringify(mark);
    let rep;
    if (cmd === "nul") rep = JSON.stringify(orig + "\u0000" + "1");
    else if (cmd === "zeros") rep = JSON.stringify("0".repeat(Number(a[2])) + orig);
    else rep = `"\\u00${orig.charCodeAt(0).toString(16)}${orig.slice(1)}"`;
    text = text.replace(enc, rep);
    fs.writeFileSync(a[cmd === "zeros" ? 3 : 2], text);
    break;
}
case "dupkey": {
    const p = readJson(a[0]), q = readJson(a[2]);
    const extra = `${JSON.stringify(a[1])}: ${JSON.stringify(q[a[1]])}`;
    let text = JSON.stringify(p, null, 1);
    if (a[3] === "first") text = text.replace(/^\{/, `{\n ${extra},`);
    else text = text.replace(/\}\s*$/, `,\n ${extra}\n}`);
    fs.writeFileSync(a[4], text);
    break;
}
default:
    die(`unknown command ${cmd}`);
}
