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


_LOOP, _FIRST_LITERAL_RUN, _MATCH, _MATCH_DONE = range(4)   # decoder states


def _copy_match(out, dist, length, limit, ip):
    start = len(out) - dist
    if start < 0:
        raise LzoError(f"a match reaches {dist} bytes back, before the start of the output", ip)
    if len(out) + length > limit:
        raise LzoError(f"a match would expand the data past its {limit} bytes", ip)
    if dist >= length:
        out += out[start:start + length]
    else:                                   # overlapping copy: the last ``dist`` bytes repeat
        out += (out[start:] * (length // dist + 1))[:length]


def _long_count(src, ip, base):
    """A run length continued in zero bytes (255 each) and a final non-zero byte."""
    t = base
    while src[ip] == 0:
        t += 255
        ip += 1
    return t + src[ip], ip + 1


def decompress(src, pos, out_size):
    """Expand the LZO1X stream at ``src[pos:]`` to exactly ``out_size`` bytes.

    Returns ``(output bytes, number of input bytes consumed)``.
    """
    out = bytearray()
    ip = pos
    n = len(src)
    try:
        t = src[ip]
        state = _LOOP
        if t > 17:
            ip += 1
            t -= 17
            if len(out) + t > out_size or ip + t > n:
                raise LzoError("the first literal run does not fit", ip)
            out += src[ip:ip + t]
            ip += t
            state = _FIRST_LITERAL_RUN
            if t < 4:                       # a short first run is followed by a match
                t = src[ip]
                ip += 1
                state = _MATCH
        while True:
            if state == _LOOP:
                t = src[ip]
                ip += 1
                if t >= 16:
                    state = _MATCH
                else:
                    if t == 0:
                        t, ip = _long_count(src, ip, 15)
                    t += 3
                    if len(out) + t > out_size or ip + t > n:
                        raise LzoError("a literal run does not fit", ip)
                    out += src[ip:ip + t]
                    ip += t
                    state = _FIRST_LITERAL_RUN
                    continue
            if state == _FIRST_LITERAL_RUN:
                t = src[ip]
                ip += 1
                if t >= 16:
                    state = _MATCH
                else:
                    dist = 1 + 0x0800 + (t >> 2) + (src[ip] << 2)
                    ip += 1
                    _copy_match(out, dist, 3, out_size, ip)
                    state = _MATCH_DONE
            if state == _MATCH:
                if t >= 64:
                    dist = 1 + ((t >> 2) & 7) + (src[ip] << 3)
                    ip += 1
                    length = (t >> 5) + 1
                elif t >= 32:
                    t &= 31
                    if t == 0:
                        t, ip = _long_count(src, ip, 31)
                    dist = 1 + ((src[ip] | (src[ip + 1] << 8)) >> 2)
                    ip += 2
                    length = t + 2
                elif t >= 16:
                    high = (t & 8) << 11
                    t &= 7
                    if t == 0:
                        t, ip = _long_count(src, ip, 7)
                    dist = high + ((src[ip] | (src[ip + 1] << 8)) >> 2)
                    ip += 2
                    if dist == 0:
                        break                           # end-of-stream marker
                    dist += 0x4000
                    length = t + 2
                else:
                    dist = 1 + (t >> 2) + (src[ip] << 2)
                    ip += 1
                    length = 2
                _copy_match(out, dist, length, out_size, ip)
                state = _MATCH_DONE
            # _MATCH_DONE: up to 3 literals follow in the low bits of the match's first byte
            t = src[ip - 2] & 3
            if t == 0:
                state = _LOOP
                continue
            if len(out) + t > out_size or ip + t > n:
                raise LzoError("trailing literals do not fit", ip)
            out += src[ip:ip + t]
            ip += t
            t = src[ip]
            ip += 1
            state = _MATCH
    except IndexError:
        raise LzoError("the compressed data ends before its end marker", n) from None
    if len(out) != out_size:
        raise LzoError(f"the data expands to {len(out)} bytes, {out_size} expected", ip)
    return bytes(out), ip - pos
