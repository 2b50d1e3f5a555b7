"""Small, slow, honest compressors for the P3D tests: greedy LZSS (Bohemia's variant) and
LZO1X (literal runs, M2 and M3 matches, the end marker), written from the formats' rules so
that spec-built files exercise the compressed paths of the reader."""

import numpy as np


def _matches(data, max_dist, max_len, min_len=3):
    """Greedy longest matches: yields (position, distance, length) or literals as length 0."""
    last = {}
    i, n = 0, len(data)
    while i < n:
        best_d = best_l = 0
        key = data[i:i + 3]
        for j in reversed(last.get(key, [])[-16:]):
            d = i - j
            if d > max_dist:
                break
            length = 0
            while length < max_len and i + length < n and data[j + length] == data[i + length]:
                length += 1
            if length > best_l:
                best_d, best_l = d, length
        step = best_l if best_l >= min_len else 1
        for k in range(i, i + step):
            last.setdefault(data[k:k + 3], []).append(k)
        yield (i, best_d, best_l) if best_l >= min_len else (i, 0, 0)
        i += step


def lzss_compress(data):
    """Flag bytes of eight items (1 = literal), 12-bit distance + 4-bit length, checksum."""
    out = bytearray()
    items = []
    for i, dist, length in _matches(data, 4095, 18):
        if length:
            items.append((False, bytes([dist & 0xFF, ((dist >> 8) << 4) | (length - 3)])))
        else:
            items.append((True, data[i:i + 1]))
    for k in range(0, len(items), 8):
        group = items[k:k + 8]
        out.append(sum(1 << b for b, (lit, _) in enumerate(group) if lit))
        for _, payload in group:
            out += payload
    checksum = int(np.frombuffer(bytes(data), np.uint8).sum(dtype=np.uint64)) & 0xFFFFFFFF
    return bytes(out) + checksum.to_bytes(4, "little")


def _length_bytes(extra):
    """A long count: zero bytes worth 255 each, then the remainder (1-255)."""
    out = bytearray()
    while extra > 255:
        out.append(0)
        extra -= 255
    out.append(extra)
    return out


def _tokens(data):
    """(literal bytes before the match, distance, length) ...; the last has length 0."""
    tokens, lit_start = [], 0
    for i, dist, length in _matches(data, 0x4000, 264):
        if length:
            tokens.append((data[lit_start:i], dist, length))
            lit_start = i + length
    tokens.append((data[lit_start:], 0, 0))
    return tokens


def lzo_compress(data):
    """LZO1X: a valid stream any LZO1X decoder expands back to ``data``."""
    out = bytearray()
    low_at = None                       # where the previous match keeps its 2 literal bits
    for k, (lits, dist, length) in enumerate(_tokens(data)):
        n = len(lits)
        if k == 0 and 0 < n <= 238:
            out.append(17 + n)
            out += lits
        elif n and 1 <= n <= 3 and low_at is not None:
            out[low_at] |= n
            out += lits
        elif n:
            if n - 3 <= 15:
                out.append(n - 3)
            else:
                out.append(0)
                out += _length_bytes(n - 18)
            out += lits
        if not length:
            break
        if length <= 8 and dist <= 2048:                      # M2
            out.append(((length - 1) << 5) | (((dist - 1) & 7) << 2))
            low_at = len(out) - 1
            out.append((dist - 1) >> 3)
        else:                                                 # M3
            if length - 2 <= 31:
                out.append(32 | (length - 2))
            else:
                out.append(32)
                out += _length_bytes(length - 2 - 31)
            low_at = len(out)
            out += ((dist - 1) << 2).to_bytes(2, "little")
    return bytes(out) + b"\x11\x00\x00"
