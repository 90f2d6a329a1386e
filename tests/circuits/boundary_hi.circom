pragma circom 2.0.0;
include "boundary.circom";
// nConstraints + nPublic = 255 + 1 = 256 = 2^8 -> domain 512.
component main = Chain(254);
