pragma circom 2.0.0;
template Mul(N) {
    signal input a;
    signal input b;
    signal input c;
    signal output out;
    signal t[N];
    t[0] <== a * b;
    for (var i = 1; i < N; i++) { t[i] <== t[i-1] * (a + i); }
    out <== t[N-1] * c;
}
component main {public [c]} = Mul(4);
