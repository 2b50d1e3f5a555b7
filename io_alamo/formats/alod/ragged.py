"""Whole-array moves between packed variable-length records and flat numpy arrays.

ALOD records mix fixed fields with variable-length AlmVectors, so record ``k`` starts where
record ``k - 1`` ended. Only the walk that finds those starts is sequential (see read.py);
gathering the fields from them, and scattering fields into records when writing, is numpy.
"""

import numpy as np


def gather(buf, starts, size, dtype=None):
    """``size`` bytes at each of ``starts`` of the uint8 array ``buf``, as (n, size) uint8 or,
    with ``dtype`` (``size`` bytes long), as an (n,) array of it."""
    starts = np.asarray(starts, np.int64)
    rows = buf[starts[:, None] + np.arange(size, dtype=np.int64)] if size else \
        np.zeros((len(starts), 0), np.uint8)
    rows = np.ascontiguousarray(rows)
    return rows.view(dtype).reshape(len(starts)) if dtype is not None else rows


def gather_runs(buf, starts, counts, dtype):
    """Runs of ``counts[k]`` items of ``dtype`` starting at byte ``starts[k]``, concatenated."""
    counts = np.asarray(counts, np.int64)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    item = np.arange(total, dtype=np.int64) - np.repeat(first, counts)
    at = np.repeat(np.asarray(starts, np.int64), counts) + item * dtype.itemsize
    return gather(buf, at, dtype.itemsize, dtype)


def interleave(fields):
    """Bytes of records made of fields: ``fields`` is a list of ``(lengths, data)``, one per
    field in record order, where ``lengths[k]`` is the byte length of the field in record
    ``k`` and ``data`` (bytes-like) holds that field of every record, one after the other."""
    if not fields:
        return b""
    lengths = np.stack([np.asarray(n, np.int64) for n, _ in fields], axis=1)   # (n, fields)
    total = int(lengths.sum())
    out = np.empty(total, np.uint8)
    if total == 0:
        return b""
    start = (np.cumsum(lengths.ravel()) - lengths.ravel()).reshape(lengths.shape)
    for f, (_, data) in enumerate(fields):
        lens = lengths[:, f]
        src = np.frombuffer(bytes(data), np.uint8)
        if len(src) != int(lens.sum()):
            raise ValueError(f"field {f}: {len(src)} bytes for records that need {lens.sum()}")
        if not len(src):
            continue
        first = np.cumsum(lens) - lens
        out[np.repeat(start[:, f] - first, lens) + np.arange(len(src), dtype=np.int64)] = src
    return out.tobytes()
