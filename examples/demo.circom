pragma circom 2.0.0;

// Bundled example: proves knowledge of 8 secret 64-bit numbers whose product
// chain (with a public offset) hashes to a public output, with range checks by
// bit decomposition — the 0/1-heavy witness shape of real circuits.
template Num2Bits(n) {
    signal input in;
    signal output out[n];
    var acc = 0;
    var e = 1;
    for (var i = 0; i < n; i++) {
        out[i] <-- (in >> i) & 1;
        out[i] * (out[i] - 1) === 0;
        acc += out[i] * e;
        e = e + e;
    }
    acc === in;
}

template Demo(N, ROUNDS) {
    signal input secrets[N];
    signal input offset;        // public input
    signal output digest;       // public output
    component bits[N];
    signal t[N * ROUNDS + 1];
    t[0] <== offset;
    for (var i = 0; i < N; i++) {
        bits[i] = Num2Bits(64);
        bits[i].in <== secrets[i];
        for (var r = 0; r < ROUNDS; r++) {
            t[i * ROUNDS + r + 1] <== t[i * ROUNDS + r] * (secrets[i] + r + 1) + offset;
        }
    }
    digest <== t[N * ROUNDS];
}

component main {public [offset]} = Demo(8, 64);
