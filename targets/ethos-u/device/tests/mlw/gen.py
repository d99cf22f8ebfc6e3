"""Encodes weights with Vela's own encoder (Vela 5.2.0) for tests/weights.rs: vectors.bin holds
streams of plain weight sequences (ethosu.mlw_codec), ordered.txt convolution weights laid out
in the order the NPU reads them (the API's npu_encode_weights). Each case's weights come from
the xorshift generator below, which the test repeats, so only the encoded streams are committed.
Run with the project venv's Python (scripts/bootstrap installs Vela): .venv/bin/python <this file>."""
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

def vectors():
    out = bytearray()
    for case in CASES:
        w = weights(*case)
        encoded = bytes(mlw_codec.encode(w))
        assert list(mlw_codec.decode(bytearray(encoded))) == w, case
        out += struct.pack("<I", len(encoded)) + encoded
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors.bin"), "wb") as f:
        f.write(out)


# Convolutions whose weights Vela's API lays out and encodes (npu_encode_weights), written to
# ordered.txt: accelerator, OFM, kernel height, width, IFM, dilation x, y, IFM bits, OFM block
# depth, depthwise, part-kernel-first, seed; then the stream in hex. The weights (OHWI) are
# `weights(seed, O*H*W*I, 20, 100)`.
ORDERED = [
    ("Ethos_U55_128", 2, 3, 3, 5, 1, 1, 8, 16, 0, 0, 21),
    ("Ethos_U55_128", 40, 3, 3, 37, 1, 1, 8, 16, 0, 0, 22),
    ("Ethos_U55_128", 40, 3, 3, 37, 1, 1, 8, 16, 0, 1, 23),
    ("Ethos_U55_128", 24, 10, 4, 1, 1, 1, 8, 16, 0, 1, 24),
    ("Ethos_U55_128", 19, 3, 3, 1, 1, 1, 8, 16, 1, 0, 25),
    ("Ethos_U55_128", 64, 1, 1, 70, 1, 1, 8, 32, 0, 0, 26),
    ("Ethos_U55_32", 13, 3, 3, 9, 1, 1, 8, 8, 0, 0, 27),
    ("Ethos_U55_32", 13, 5, 5, 9, 1, 1, 8, 8, 0, 1, 28),
    ("Ethos_U55_64", 33, 9, 9, 3, 1, 1, 8, 16, 0, 1, 29),
    ("Ethos_U55_256", 17, 3, 3, 40, 2, 2, 8, 16, 0, 0, 30),
    ("Ethos_U55_256", 17, 7, 7, 1, 2, 1, 8, 16, 1, 0, 31),
    ("Ethos_U65_256", 48, 2, 2, 20, 1, 1, 16, 16, 0, 0, 32),
    ("Ethos_U65_256", 48, 3, 3, 20, 1, 1, 16, 16, 0, 1, 33),
    ("Ethos_U55_128", 8, 11, 11, 3, 1, 1, 8, 8, 0, 1, 34),
]


def ordered():
    import numpy as np
    from ethosu.vela import api

    lines = []
    for case in ORDERED:
        accel, o, h, w, i, dx, dy, bits, block, depthwise, part, seed = case
        volume = np.array(weights(seed, o * h * w * i, 20, 100), dtype=np.int16).reshape(o, h, w, i)
        traversal = api.NpuBlockTraversal.PART_KERNEL_FIRST if part else api.NpuBlockTraversal.DEPTH_FIRST
        encoded = api.npu_encode_weights(
            getattr(api.NpuAccelerator, accel), volume, (dx, dy), bits, block, bool(depthwise), traversal
        )
        lines.append(" ".join(str(v) for v in case) + " " + bytes(encoded).hex())
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ordered.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    vectors()
    ordered()
