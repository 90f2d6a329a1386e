pragma circom 2.0.0;

// No public signals at all (nPublic = 0): IC has a single point and the
// verifier's public sum is just IC[0]. Historically a snarkjs pain point.
template NoPub(N) {
    signal input a;
    signal input b;
    signal t[N];
    t[0] <== a * b;
    for (var i = 1; i < N; i++) {
        t[i] <== t[i-1] * t[i-1] + b;
    }
}

component main = NoPub(8);
