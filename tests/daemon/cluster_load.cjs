// Helpers of tests/daemon/cluster_load.sh (localhost daemons only).
//
//   node cluster_load.cjs submit OUT N PRIOS START URL... -- KEYPATH:WTNS...
//       submits N jobs, job i to URL[i % #URL] with the (key, witness) pair
//       i % #pairs and the priority PRIOS[i % #PRIOS] (comma-separated),
//       8 at a time, each with the idempotency key load-<START + i>; a
//       request that fails without an answer (connection reset) is sent
//       again with the same key, so a job is made at most once. Appends
//       "id host-index pair-index priority" per acknowledged job to OUT.
//   node cluster_load.cjs verify RESULTS.json VKEY_DIR N
//       snarkjs verifies N proofs of each curve from RESULTS.json (rows
//       {id, key, proof, pub, curve}, from the jobs table); prints
//       "snarkjs OK <count>" or exits 1 naming the first that fails.
'use strict';
const http = require('http');
const fs = require('fs');
const [mode, ...args] = process.argv.slice(2);
setTimeout(() => { console.error('timeout'); process.exit(3); }, 300000).unref();

function post(url, path, body, idem) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request({ host: u.hostname, port: u.port, method: 'POST', path,
      headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': body.length,
                 'Idempotency-Key': idem } }, res => {
      let d = '';
      res.on('data', c => d += c).on('end', () => resolve({ status: res.statusCode, body: d }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function submit() {
  const [out, nS, priosS, startS, ...rest] = args;
  const sep = rest.indexOf('--');
  const urls = rest.slice(0, sep), pairs = rest.slice(sep + 1).map(p => p.split(':'));
  const bodies = pairs.map(([, w]) => fs.readFileSync(w));
  const prios = priosS.split(','), n = +nS, start = +startS;
  let next = 0;
  const lines = [];
  async function one(i) {
    const h = i % urls.length, p = i % pairs.length, prio = prios[i % prios.length];
    const path = `/v1/jobs?key_path=${encodeURIComponent(pairs[p][0])}&priority=${prio}`;
    for (let t = 0; ; t++) {
      let r;
      try {
        r = await post(urls[h], path, bodies[p], `load-${start + i}`);
      } catch (e) {
        if (t < 20) { await new Promise(res => setTimeout(res, 100)); continue; }
        throw new Error(`job ${i} to ${urls[h]}: ${e.message}`);
      }
      if (r.status === 429 || r.status === 503) { await new Promise(res => setTimeout(res, 100)); continue; }
      if (r.status !== 201 && r.status !== 200) throw new Error(`job ${i} to ${urls[h]}: HTTP ${r.status} ${r.body}`);
      lines.push(`${JSON.parse(r.body).id} ${h} ${p} ${prio}`);
      return;
    }
  }
  async function lane() { while (next < n) await one(next++); }
  await Promise.all(Array.from({ length: 8 }, lane));
  fs.appendFileSync(out, lines.join('\n') + '\n');
}

async function verify() {
  const [file, vdir, perS] = args;
  const snarkjs = require('snarkjs');
  const rows = JSON.parse(fs.readFileSync(file));
  const per = +perS, seen = {};
  let ok = 0;
  for (const r of rows) {
    seen[r.curve] = (seen[r.curve] || 0) + 1;
    if (seen[r.curve] > per) continue;
    const vk = JSON.parse(fs.readFileSync(`${vdir}/${r.curve}/mul.vkey.json`));
    if (!await snarkjs.groth16.verify(vk, JSON.parse(r.pub), JSON.parse(r.proof))) {
      console.error(`snarkjs rejects the proof of job ${r.id} (${r.curve})`);
      process.exit(1);
    }
    ok++;
  }
  console.log(`snarkjs OK ${ok}`);
  process.exit(0);
}

(mode === 'submit' ? submit() : mode === 'verify' ? verify() : Promise.reject(new Error('mode')))
  .catch(e => { console.error(e.message); process.exit(1); });
