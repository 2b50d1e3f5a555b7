"""LZSS decompression, as used by binarized P3D files up to version 43.

Bohemia's variant: a flag byte announces eight items, least significant bit first; a set bit
is one literal byte, a clear bit a two-byte back reference (12-bit distance, 4-bit length
minus 3) into a 4,096-byte window that starts out as spaces. The expanded data is followed by a
32-bit sum of its bytes. The compressed length is not stored: :func:`decompress` says how many
input bytes it used. Output never grows past ``out_size``; corrupt input raises
:class:`LzssError`.

The loop runs once per flag bit, copying back references as slices; runs of literals are
taken in one slice.
"""

import numpy as np

WINDOW = 4096
MAX_LENGTH = 18
# the window before any output: ring positions 4078..4095 hold zeros, 0..4077 spaces, and
# decoding starts writing at 4078, so "the bytes before the output" read like this prefix
_PREFIX = bytes(MAX_LENGTH) + b" " * (WINDOW - MAX_LENGTH)


class LzssError(ValueError):
    """The compressed stream is corrupt; ``offset`` is where in the input it went wrong."""

    def __init__(self, message, offset):
        super().__init__(message)
        self.offset = offset


def _literal_run(flags, bits_left):
    """How many of the next flag bits are set (literals), counting from the lowest."""
    run = 0
    while run < bits_left and flags & (1 << run):
        run += 1
    return run


def decompress(src, pos, out_size, signed_checksum=False):
    """Expand the LZSS stream at ``src[pos:]`` to ``out_size`` bytes and check its checksum
    (the sum of the bytes; PAA textures sum them as signed bytes: ``signed_checksum``).

    Returns ``(output bytes, number of input bytes consumed, checksum included)``.
    """
    buf = bytearray(_PREFIX)
    end = WINDOW + out_size
    ip = pos
    n = len(src)
    try:
        while len(buf) < end:
            flags = src[ip]
            ip += 1
            bit = 0
            while bit < 8 and len(buf) < end:
                run = _literal_run(flags >> bit, 8 - bit)
                if run:
                    run = min(run, end - len(buf))
                    if ip + run > n:
                        raise IndexError
                    buf += src[ip:ip + run]
                    ip += run
                    bit += run
                    continue
                lo, hi = src[ip], src[ip + 1]
                ip += 2
                dist = lo | ((hi & 0xF0) << 4) or WINDOW
                length = (hi & 0x0F) + 3
                if len(buf) + length > end:
                    raise LzssError(f"a back reference would expand the data past its "
                                    f"{out_size} bytes", ip - 2)
                start = len(buf) - dist
                if dist >= length:
                    buf += buf[start:start + length]
                else:
                    buf += (buf[start:] * (length // dist + 1))[:length]
                bit += 1
        if ip + 4 > n:
            raise IndexError
    except IndexError:
        raise LzssError("the compressed data ends early", n) from None
    out = bytes(buf[WINDOW:])
    stored = int.from_bytes(src[ip:ip + 4], "little")
    as_bytes = np.frombuffer(out, np.int8 if signed_checksum else np.uint8)
    total = int(as_bytes.sum(dtype=np.int64)) & 0xFFFFFFFF
    if stored != total:
        raise LzssError(f"checksum 0x{stored:08x} does not match the data's 0x{total:08x}", ip)
    return out, ip + 4 - pos
