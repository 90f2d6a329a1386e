pragma circom 2.0.0;

// Domain-boundary circuit: N non-linear constraints plus one linear one for
// the public output, so nConstraints + nPublic = (N + 1) + 1. With N = 253
// that is 255 = 2^8 - 1 (the nConstraints + nPublic + 1 rows fill the
// 256-point domain exactly); with N = 254 it is 256 = 2^8 and the domain
// doubles to 512. The main component is declared in boundary_lo.circom /
// boundary_hi.circom (compile from this directory so the include resolves).
template Chain(N) {
    signal input a;
    signal input b;
    signal output out;
    signal t[N];
    t[0] <== a * b;
    for (var i = 1; i < N; i++) {
        t[i] <== t[i-1] * t[i-1] + a;
    }
    out <== t[N-1] + b;
}
