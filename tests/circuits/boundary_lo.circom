pragma circom 2.0.0;
include "boundary.circom";
// nConstraints + nPublic = 254 + 1 = 255 = 2^8 - 1 -> domain 256, full.
component main = Chain(253);
