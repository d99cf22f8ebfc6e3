"""Encodes weight tensors with Vela's own encoder (ethosu.mlw_codec, Vela 5.2.0) into
vectors.bin, which tests/weights.rs decodes: each case's weights come from the xorshift
generator below, which the test repeats, so only the encoded streams are committed. Run with the
project venv's Python (scripts/bootstrap installs Vela): .venv/bin/python <this file>."""
import os
import struct
from ethosu import mlw_codec

MASK = (1 << 64) - 1


def xorshift(seed):
    state = seed
    while True:
        state ^= (state << 13) & MASK
        state ^= state >> 7
        state ^= (state << 17) & MASK
        yield state


def weights(seed, count, zeros_percent, magnitude):
    """`count` weights: zero with `zeros_percent` chance, else uniform in [-magnitude, magnitude]."""
    rng = xorshift(seed)
    out = []
    for _ in range(count):
        if next(rng) % 100 < zeros_percent:
            out.append(0)
        else:
            out.append(int(next(rng) % (2 * magnitude + 1)) - magnitude)
    return out


# (seed, count, zeros_percent, magnitude): kept the same in tests/weights.rs.
CASES = [
    (1, 1, 0, 5),
    (2, 100, 0, 255),
    (3, 1000, 0, 255),
    (4, 5000, 0, 3),
    (5, 4000, 80, 127),
    (6, 300, 100, 1),
    (7, 20000, 10, 40),
    (8, 70000, 30, 7),
    (9, 33000, 0, 1),
    (10, 2048, 95, 255),
    (11, 777, 50, 15),
    (12, 12, 0, 0),
]

if __name__ == "__main__":
    out = bytearray()
    for case in CASES:
        w = weights(*case)
        encoded = bytes(mlw_codec.encode(w))
        assert list(mlw_codec.decode(bytearray(encoded))) == w, case
        out += struct.pack("<I", len(encoded)) + encoded
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors.bin"), "wb") as f:
        f.write(out)
