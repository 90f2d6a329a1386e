pragma circom 2.0.0;

// Edge-case fixture: one linear constraint and every input public, so the
// zkey has an all-infinity B1/B2 and an empty section 8 (no private wires).
template Lin() {
    signal input a;
    signal input b;
    signal output c;
    c <== a + b;
}

component main {public [a, b]} = Lin();
