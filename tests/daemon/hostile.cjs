// Hostile HTTP clients for tests/daemon/hostile.sh, only towards 127.0.0.1
// (source addresses 127.0.0.X choose the "client address"), bounded in count
// and in time (every mode ends after 120 s at most).
//
//   node hostile.cjs attack PORT N FIRST_SRC NSRC
//       N connections from 127.0.0.FIRST_SRC .. +NSRC-1: half trickle their
//       headers (a byte every 200 ms), half send headers then trickle a body;
//       a closed one reconnects after 50 ms. Runs until stdin closes.
//   node hostile.cjs trickle PORT headers|body
//       one connection trickling (a byte every 100 ms); prints
//       "closed_after S" when the daemon closes it.
//   node hostile.cjs perip PORT N SRC LIMIT
//       N idle connections from one address; prints "open O closed C" once
//       N - LIMIT of them have been closed by the daemon.
//   node hostile.cjs bodies PORT N BYTES PATH EACH
//       N concurrent POSTs of BYTES each: every connection sends its headers
//       and its first MiB, then waits until each of the N has either been
//       answered or holds EACH bytes of the daemon's body budget (its
//       cuzk_http_body_bytes_reserved gauge); then sends the rest. Prints
//       the status codes, sorted.
//
//   node hostile.cjs hold PORT N BYTES PATH
//       N concurrent POSTs of BYTES each: headers and half the body, then
//       "half" on stdout and a wait for a line on stdin before the rest.
'use strict';
const net = require('net');
const [mode, portS, ...args] = process.argv.slice(2);
const port = +portS;
setTimeout(() => { console.log('timeout'); process.exit(3); }, 120000).unref();

function status(buf) {
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(buf);
  return m ? +m[1] : 0;
}

if (mode === 'attack') {
  const n = +args[0], first = +args[1], nsrc = +args[2];
  let stop = false;
  const timers = new Set();
  function open(i) {
    if (stop) return;
    const s = net.connect({ port, host: '127.0.0.1', localAddress: `127.0.0.${first + (i % nsrc)}` });
    let t = null;
    s.on('connect', () => {
      let head = 'GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Slow: ';
      if (i % 2) {
        s.write('POST /v1/jobs?key_path=/x HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n');
        head = 'x'.repeat(100000);
      }
      let k = 0;
      t = setInterval(() => { if (k < head.length) s.write(head[k++]); }, 200);
      timers.add(t);
    });
    s.on('error', () => {});
    s.on('close', () => {
      if (t) { clearInterval(t); timers.delete(t); }
      if (!stop) setTimeout(() => open(i), 50);
    });
  }
  for (let i = 0; i < n; i++) open(i);
  console.log('attacking');
  process.stdin.on('data', () => {});
  process.stdin.on('end', () => { stop = true; for (const t of timers) clearInterval(t); process.exit(0); });
} else if (mode === 'trickle') {
  const what = args[0];
  const s = net.connect({ port, host: '127.0.0.1' });
  const t0 = Date.now();
  let t;
  s.on('connect', () => {
    let text = 'GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Slow: ' + 'y'.repeat(100000);
    if (what === 'body') {
      s.write('POST /v1/jobs?key_path=/x HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n');
      text = 'x'.repeat(100000);
    }
    let k = 0;
    t = setInterval(() => { if (k < text.length) s.write(text[k++]); }, 100);
  });
  s.on('error', () => {});
  s.on('close', () => { clearInterval(t); console.log('closed_after ' + ((Date.now() - t0) / 1000).toFixed(2)); process.exit(0); });
} else if (mode === 'perip') {
  const n = +args[0], src = args[1];
  let closed = 0, opened = 0;
  for (let i = 0; i < n; i++) {
    const s = net.connect({ port, host: '127.0.0.1', localAddress: src });
    s.on('connect', () => { opened++; });
    s.on('error', () => {});
    s.on('close', () => {
      closed++;
      // The daemon closes the connections beyond its per-address limit at
      // once; the others stay open (their header deadline is far).
      if (closed === n - +args[1 + 1]) { console.log(`open ${n - closed} closed ${closed}`); process.exit(0); }
    });
  }
} else if (mode === 'bodies') {
  const n = +args[0], bytes = +args[1], path = args[2];
  const MiB = 1 << 20;
  const chunk = Buffer.alloc(MiB, 0x61);
  const codes = new Array(n).fill(0), primed = new Array(n).fill(false);
  const socks = [];
  let finished = 0, released = false;
  const each = +args[3];
  let polling = false;
  function maybeRelease() {
    if (released || polling) return;
    polling = true;
    const waiting = codes.filter(c => !c).length;
    if (!waiting) return;
    // Held while the daemon has not decided on every request: the answered
    // ones plus those holding a reservation must be all of them.
    const q = net.connect({ port, host: '127.0.0.1' });
    let m = '';
    q.on('connect', () => q.write('GET /metrics HTTP/1.0\r\n\r\n'));
    q.on('data', d => { m += d; });
    q.on('error', () => { polling = false; setTimeout(maybeRelease, 100); });
    q.on('end', () => {
      polling = false;
      const r = /^cuzk_http_body_bytes_reserved (\d+)/m.exec(m);
      const held = r ? Math.floor(+r[1] / each) : 0;
      if (released) return;
      if (held === codes.filter(c => !c).length && primed.every((p, i) => p || codes[i])) {
        released = true;
        console.error(`holding: ${held} bodies admitted, ${n - held} answered`);
        for (let i = 0; i < n; i++) if (!codes[i]) sendRest(i);
      } else setTimeout(maybeRelease, 100);
    });
  }
  function sendRest(i) {
    const s = socks[i];
    let left = bytes - MiB;
    (function pump() {
      while (left > 0) {
        const k = Math.min(left, MiB);
        left -= k;
        if (!s.write(k === MiB ? chunk : chunk.subarray(0, k))) { s.once('drain', pump); return; }
      }
    })();
  }
  for (let i = 0; i < n; i++) {
    const s = net.connect({ port, host: '127.0.0.1' });
    socks.push(s);
    let buf = '';
    s.on('connect', () => {
      s.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${bytes}\r\n\r\n`);
      s.write(chunk, () => { primed[i] = true; maybeRelease(); });
    });
    s.on('data', d => {
      buf += d.toString('latin1');
      if (!codes[i] && status(buf)) { codes[i] = status(buf); maybeRelease(); s.destroy(); }
    });
    s.on('error', () => {});
    s.on('close', () => {
      if (!codes[i]) codes[i] = -1;
      if (++finished === n) { console.log(codes.slice().sort().join(' ')); process.exit(0); }
      maybeRelease();
    });
  }
} else if (mode === 'hold') {
  // node hostile.cjs hold PORT N BYTES PATH: N concurrent POSTs of BYTES
  // each send their headers and the first half of their body, print "half"
  // and wait for a line on stdin; then they send the rest. Prints the
  // status codes, sorted.
  const n = +args[0], bytes = +args[1], path = args[2];
  const MiB = 1 << 20, half = Math.floor(bytes / 2);
  const chunk = Buffer.alloc(MiB, 0x61);
  const codes = new Array(n).fill(0), socks = [];
  let finished = 0, halfway = 0;
  function pump(s, left, done) {
    (function go() {
      while (left > 0) {
        const k = Math.min(left, MiB);
        left -= k;
        if (!s.write(k === MiB ? chunk : chunk.subarray(0, k))) { s.once('drain', go); return; }
      }
      done();
    })();
  }
  for (let i = 0; i < n; i++) {
    const s = net.connect({ port, host: '127.0.0.1' });
    socks.push(s);
    let buf = '';
    s.on('connect', () => {
      s.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${bytes}\r\n\r\n`);
      pump(s, half, () => { if (++halfway === n) console.log('half'); });
    });
    s.on('data', d => {
      buf += d.toString('latin1');
      if (!codes[i] && status(buf)) { codes[i] = status(buf); s.destroy(); }
    });
    s.on('error', () => {});
    s.on('close', () => {
      if (!codes[i]) codes[i] = -1;
      if (++finished === n) { console.log(codes.slice().sort().join(' ')); process.exit(0); }
    });
  }
  process.stdin.once('data', () => { for (const s of socks) pump(s, bytes - half, () => {}); });
} else {
  console.error('unknown mode ' + mode);
  process.exit(2);
}
