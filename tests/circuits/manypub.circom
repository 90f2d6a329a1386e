pragma circom 2.0.0;

// Hundreds of public signals: 150 public inputs and 150 outputs
// (nPublic = 300) with only 150 constraints, so public rows dominate the
// domain and the IC / verifier MSM is large.
template ManyPub(N) {
    signal input x[N];
    signal input k;
    signal output y[N];
    for (var i = 0; i < N; i++) {
        y[i] <== x[i] * (x[i] + k);
    }
}

component main {public [x]} = ManyPub(150);
