pragma circom 2.0.0;

// Linear-only circuit: the single constraint has empty A and B, so every B
// base in the zkey is infinity and the A/B MSMs see only the public rows
// (snarkjs's old "Scalar size does not match" case). Needs --O1: --O2
// would substitute the constraint away.
template Linear() {
    signal input a;
    signal input b;
    signal output c;
    c <== a + b;
}

component main = Linear();
