"""The collision tree record, its node dtypes, and the box arithmetic builder and checker share."""

from dataclasses import dataclass, field

import numpy as np

from ..layout import Layout

# In memory the counts and links are 32-bit so that trees larger than the file allows can
# still be built and checked; the writer refuses values that do not fit the file's 16 bits.
NODE_DTYPE = np.dtype([("min", "u1", (3,)), ("max", "u1", (3,)), ("count", "<u4"), ("link", "<u4")])
FILE_NODE_DTYPE = np.dtype([("min", "u1", (3,)), ("max", "u1", (3,)), ("count", "<u2"), ("link", "<u2")])

# The exporter scales the triangles' bounding box by this about its centre for the root box.
ROOT_BOX_SCALE = 1.01


@dataclass(eq=False, slots=True)
class CollisionTree:
    box_min: np.ndarray          # (3,) float32, the root box
    box_max: np.ndarray          # (3,) float32
    nodes: np.ndarray            # NODE_DTYPE records
    triangles: np.ndarray        # (n,) uint32 triangle ids into the sub-mesh's index buffer
    layout: Layout | None = field(default=None, repr=False)


def dequantize_bytes(pmin, pext, b):
    """Float bound of byte ``b`` in a parent box starting at ``pmin`` with size ``pext``.

    One formula shared by the builder and the checker, in float64.
    """
    return pmin + (np.asarray(b, dtype=np.float64) / 255.0) * pext


def root_box(positions, indices) -> tuple[np.ndarray, np.ndarray]:
    """The exporter's header box for these triangles: float32 ``(box_min, box_max)``."""
    pos = np.asarray(positions, dtype=np.float32).reshape(-1, 3)
    idx = np.asarray(indices).reshape(-1, 3)
    if len(idx) == 0:
        return np.zeros(3, np.float32), np.zeros(3, np.float32)
    pts = pos[idx].reshape(-1, 3)
    return scaled_box(pts.min(0), pts.max(0))


def scaled_box(lo, hi):
    """The root box around the float32 bounds ``lo``..``hi``."""
    # float32, in the exporter's order of operations (bit-exact on the game's files)
    centre = (lo + hi) / np.float32(2)
    half = (hi - lo) / np.float32(2) * np.float32(ROOT_BOX_SCALE)
    return np.minimum(centre - half, lo), np.maximum(centre + half, hi)
