"""LZO1X decompression, as used by binarized P3D files from version 44 on.

The files store neither the compressed length nor an end pointer, only the size the data
expands to: :func:`decompress` reads up to LZO's end-of-stream marker and says how many input
bytes that took. Output never grows past ``out_size`` and every back reference is checked, so
corrupt input raises :class:`LzoError` instead of reading out of bounds or allocating much.

The loop runs once per LZO instruction (a literal run or a match), never once per byte: runs
and matches are copied as slices.
"""


class LzoError(ValueError):
    """The compressed stream is corrupt; ``offset`` is where in the input it went wrong."""

    def __init__(self, message, offset):
        super().__init__(message)
        self.offset = offset


_LOOP, _FIRST_LITERAL_RUN, _MATCH = range(3)      # decoder states


def _long_count(src, ip, base):
    """A run length continued in zero bytes (255 each) and a final non-zero byte."""
    t = base
    while src[ip] == 0:
        t += 255
        ip += 1
    return t + src[ip], ip + 1


def _match(src, ip, t):
    """Decode the match instruction ``t`` (its first byte, already read) and what follows it:
    returns (distance back, length, input position); distance 0 is the end marker."""
    if t >= 64:                                       # M2: 3-8 bytes, up to 2 KiB back
        return 1 + ((t >> 2) & 7) + (src[ip] << 3), (t >> 5) + 1, ip + 1
    if t >= 32:                                       # M3: up to 16 KiB back
        t &= 31
        if t == 0:
            t, ip = _long_count(src, ip, 31)
        return 1 + ((src[ip] | (src[ip + 1] << 8)) >> 2), t + 2, ip + 2
    if t >= 16:                                       # M4: 16-48 KiB back, or the end
        high = (t & 8) << 11
        t &= 7
        if t == 0:
            t, ip = _long_count(src, ip, 7)
        dist = high + ((src[ip] | (src[ip + 1] << 8)) >> 2)
        return (dist + 0x4000 if dist else 0), t + 2, ip + 2
    return 1 + (t >> 2) + (src[ip] << 2), 2, ip + 1  # M1: 2 bytes, up to 1 KiB back


def decompress(src, pos, out_size):
    """Expand the LZO1X stream at ``src[pos:]`` to exactly ``out_size`` bytes.

    Returns ``(output bytes, number of input bytes consumed)``.
    """
    out = bytearray()
    op = 0                              # len(out), kept by hand (faster)
    ip = pos
    n = len(src)
    state = _LOOP
    try:
        if src[ip] > 17:                # the stream may open with a literal run
            t = src[ip] - 17
            ip += 1
            if t > out_size or ip + t > n:
                raise LzoError("the first literal run does not fit", ip)
            out += src[ip:ip + t]
            op += t
            ip += t
            state = _FIRST_LITERAL_RUN
            if t < 4:                   # a short one is followed by a match
                t = src[ip]
                ip += 1
                state = _MATCH
        while True:
            if state != _MATCH:
                if state == _LOOP:
                    t = src[ip]
                    ip += 1
                    if t < 16:                          # a literal run
                        if t == 0:
                            t, ip = _long_count(src, ip, 15)
                        t += 3
                        if op + t > out_size or ip + t > n:
                            raise LzoError("a literal run does not fit", ip)
                        out += src[ip:ip + t]
                        op += t
                        ip += t
                        t = src[ip]
                        ip += 1
                else:
                    t = src[ip]
                    ip += 1
                if t < 16:              # after a literal run: a 3-byte match 2-3 KiB back
                    t = 0x0801 + (t >> 2) + (src[ip] << 2)
                    ip += 1
                    length = 3
            if t >= 0x0801:             # the 3-byte match decoded above
                dist = t
            elif t >= 64:               # M2 (inline: the most common)
                dist = 1 + ((t >> 2) & 7) + (src[ip] << 3)
                length = (t >> 5) + 1
                ip += 1
            else:
                dist, length, ip = _match(src, ip, t)
            state = _MATCH
            if dist == 0:
                break                                   # end-of-stream marker
            start = op - dist
            if start < 0 or op + length > out_size:
                raise LzoError(f"a match of {length} bytes from {dist} back does not fit", ip)
            if dist >= length:
                out += out[start:start + length]
            else:                       # overlapping: the last ``dist`` bytes repeat
                out += (out[start:] * (length // dist + 1))[:length]
            op += length
            t = src[ip - 2] & 3         # up to 3 literals ride in the match's low bits
            if t == 0:
                state = _LOOP
                continue
            if op + t > out_size or ip + t > n:
                raise LzoError("trailing literals do not fit", ip)
            out += src[ip:ip + t]
            op += t
            ip += t
            t = src[ip]
            ip += 1
            state = _MATCH
    except IndexError:
        raise LzoError("the compressed data ends before its end marker", n) from None
    if op != out_size:
        raise LzoError(f"the data expands to {op} bytes, {out_size} expected", ip)
    return bytes(out), ip - pos
