#!/usr/bin/python3
"""Writes crafted `--sample-inputs` files for the onnx2hpp CLI tests (issue 16, item 2): .npz
archives whose .npy headers lie about their size. Each once crashed or misbehaved in the npz
reader (tools/common/npz.cpp). The files are committed; this script documents how they were
made (any python3: it needs only the standard library)."""
import os
import struct
import zipfile

here = os.path.dirname(os.path.abspath(__file__))


def npy(descr, shape, fortran=False, data=b""):
    """An .npy (version 1.0) image with a hand-written header: `shape` is the literal text."""
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, "True" if fortran else "False", shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data


def save(name, image):
    with zipfile.ZipFile(os.path.join(here, name), "w") as z:
        z.writestr("input.npy", image)


# 3 * 6148914691236517206 = 2^64 + 2: the element count wrapped to 2, and the Fortran-order
# conversion then read element 3 of 2 (heap-buffer-overflow).
save("count_wraps_size_t.npz", npy("<i1", "(3, 6148914691236517206)", fortran=True, data=b"\x01\x02"))
# 2^62 elements of 4 bytes: the byte count wrapped to 0, so the data looked complete, and
# resizing the value vector to 2^62 threw "vector::_M_default_append".
save("byte_count_wraps.npz", npy("<i4", "(4611686018427387904,)", data=b"\x01\x00\x00\x00"))
# A 20-digit extent: signed overflow in the shape digit parser (UBSan).
save("extent_overflows_int64.npz", npy("<i1", "(99999999999999999999,)", data=b"\x01"))
# Fortran order whose column-major strides overflow int64 (2^32 * 2^32 * 0 elements read as 0
# elements, then strides 2^32, 2^64): a shape with a zero extent is empty, the strides must not
# be computed as a product of the others.
save("fortran_strides_overflow.npz", npy("<i1", "(4294967296, 4294967296, 0)", fortran=True))
# member_size_lies.npz is not written here: the npz fuzzer made it (tests/fuzz, FUZZ_TARGET=npz).
# Its zip directory claims 540,682,098 uncompressed bytes for a 245-byte member; the reader
# allocated all of them before reading (a 13 s timeout under ASan) and now reads in chunks.
