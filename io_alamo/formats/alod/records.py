"""ALOD ``ALM\\0`` records: what a file holds, version by version, as numpy arrays and slotted
dataclasses. Arrays keep the file's big-endian dtypes, so writing them back is exact.

Layout per version (``../shared/specs/other-formats/alod-alm-mesh-format.txt``):
floats are 64-bit in versions 1-2, 32-bit from 3; animation from 4; 4x4 bone matrices from 5
(before: a 3x3 matrix then an offset, 12 floats, also per animation frame); bone statistics,
frame rate and the P override from 6; vertex tangent planes from 7; tangent maps (and the
two-field material) from 8; influence collapses from 9; bone tails from 10.
"""

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

MAGIC = b"ALM\0"
MIN_VERSION = 2
MAX_VERSION = 10
INFLUENCE_MARKER = 0xFFFFFFFF
DEFAULT_FRAME_RATE = 30.0        # files before version 6 do not store one


def float_dtype(version):
    """The file's float: IEEE double in versions 1-2, single from 3."""
    return np.dtype(">f8") if version <= 2 else np.dtype(">f4")


def matrix_floats(version):
    """Floats of a bone's rest matrix and of each frame's bone matrix."""
    return 16 if version >= 5 else 12


def bone_dtype(version):
    f = float_dtype(version)
    fields = [("parent", ">i4"), ("transform", f, (matrix_floats(version),))]
    if version >= 6:
        fields.append(("flags", ">u4"))
    if version >= 10:
        fields.append(("tail", f, (3,)))
    if version >= 6:
        fields += [("max_singular", f), ("translate_centre", f, (3,)), ("translate_radius", f),
                   ("expect_L", f, (16,)), ("expect_GTG", f, (16,)), ("expect_LTGTGL", f)]
    return np.dtype(fields)


def component_dtype(version):
    """One AlmVectorComponent: a bone index and that bone's homogeneous coordinates."""
    return np.dtype([("bone", ">u4"), ("coords", float_dtype(version), (4,))])


def triangle_dtype():
    return np.dtype([("vertices", ">u4", (3,)), ("material", ">u4")])


def edge_collapse_dtype(version):
    return np.dtype([("p1", ">u4"), ("p2", ">u4"), ("vl", ">u4"), ("vr", ">u4"),
                     ("error", float_dtype(version))])


def header_fields(version):
    """The header's fields after magic and version, in file order."""
    names = ["num_comments", "num_bones", "num_positions", "num_vertices", "num_textures"]
    if version >= 8:
        names.append("num_tangents")
    names += ["num_materials", "num_triangles", "num_collapses"]
    if version >= 4:
        names.append("num_frames")
    return names


def rest_matrices(transforms, version):
    """Bone-to-parent 4x4 matrices (float64, column-vector convention: ``M @ p``) from the
    file's rows: 16 floats row-major, or before version 5 a 3x3 matrix and an offset."""
    t = np.asarray(transforms, np.float64)
    if version >= 5:
        return t.reshape(t.shape[:-1] + (4, 4))
    out = np.zeros(t.shape[:-1] + (4, 4))
    out[..., :3, :3] = t[..., :9].reshape(t.shape[:-1] + (3, 3))
    out[..., :3, 3] = t[..., 9:12]
    out[..., 3, 3] = 1.0
    return out


@dataclass(slots=True)
class VectorSet:
    """A run of AlmVectors: vector ``k`` is ``components[starts[k]:starts[k] + counts[k]]``."""
    counts: np.ndarray                   # (n,) >u4
    components: np.ndarray               # (sum of counts,) component_dtype

    @property
    def starts(self):
        return np.concatenate([[0], np.cumsum(self.counts, dtype=np.int64)[:-1]]) \
            if len(self.counts) else np.zeros(0, np.int64)

    def owner(self):
        """The vector each component belongs to."""
        return np.repeat(np.arange(len(self.counts)), self.counts.astype(np.int64))

    def __len__(self):
        return len(self.counts)

    def transformed(self, worlds):
        """Each vector in object space: the sum over its components of the component
        bone's matrix times its coordinates, (n, 4) float64 (homogeneous)."""
        comp = self.components
        bones = comp["bone"].astype(np.int64)
        moved = np.einsum("kij,kj->ki", np.asarray(worlds, np.float64)[bones],
                          comp["coords"].astype(np.float64))
        owner = self.owner()
        return np.stack([np.bincount(owner, moved[:, i], len(self.counts)) for i in range(4)],
                        axis=1)


@dataclass(slots=True)
class Vertices:
    position: np.ndarray                 # (n,) >u4: index into positions
    tex_coords: np.ndarray               # (n, 2) float: s, t
    tangents: Optional[tuple] = None     # (VectorSet, VectorSet), version 7+

    def __len__(self):
        return len(self.position)


@dataclass(slots=True)
class Texture:
    width: int
    height: int
    channels: int
    signed: int                          # the file's uint32 (true for vectors)
    values: bytes                        # width * height * channels, row major


@dataclass(slots=True)
class TangentMap:
    width: int
    height: int
    patch: np.ndarray                    # (width * height,) >i4
    tangents: tuple                      # (VectorSet, VectorSet), one vector per entry


@dataclass(slots=True)
class Material:
    texture_id: int                      # -1: no diffuse map
    tangent_id: Optional[int] = None     # version 8+: -1 for no tangent map
    bones: Optional[np.ndarray] = None   # before version 8: bones and tangent ids, paired
    tangent_ids: Optional[np.ndarray] = None


@dataclass(slots=True)
class Collapses:
    """Edge and (version 9+) influence collapses, in file order: record ``k`` is the
    ``rank[k]``-th of its kind."""
    is_influence: np.ndarray             # (n,) bool
    edges: np.ndarray                    # edge_collapse_dtype
    influence_counts: np.ndarray         # (n influence,) >u4: vertex pairs of each
    influence_pairs: np.ndarray          # (sum of counts, 2) >u4: old, new vertex
    influence_errors: np.ndarray         # (n influence,) float

    def __len__(self):
        return len(self.is_influence)

    @property
    def rank(self):
        inf = self.is_influence
        return np.where(inf, np.cumsum(inf) - 1, np.cumsum(~inf) - 1)

    def errors(self):
        """Each collapse's error, in file order (float64)."""
        out = np.empty(len(self), np.float64)
        out[~self.is_influence] = self.edges["error"]
        out[self.is_influence] = self.influence_errors
        return out


@dataclass(slots=True)
class AlodMesh:
    version: int
    comments: list                       # bytes each (not NUL-terminated in the file)
    bones: np.ndarray                    # bone_dtype(version)
    positions: VectorSet
    vertices: Vertices
    textures: list                       # Texture
    tangent_maps: list                   # TangentMap (version 8+)
    materials: list                      # Material
    triangles: np.ndarray                # triangle_dtype()
    collapses: Collapses
    frames: np.ndarray                   # (frames, bones, 16 or 12) float (version 4+)
    frame_rate: Optional[np.float32] = None      # version 6+
    override_p: Optional[int] = None     # version 6+: the file's uint32
    p_matrix: Optional[np.ndarray] = None        # (4 bones, 4 bones) when override_p
    trailing: bytes = b""                # bytes after the last record, kept as they were
    offsets: dict = field(default_factory=dict, compare=False)   # where sections started

    def rest_local(self):
        """Each bone's matrix relative to its parent (float64 4x4)."""
        return rest_matrices(self.bones["transform"], self.version)

    def world_matrices(self, locals_=None):
        """Bone-to-object matrices, composed parent first: ``world = world[parent] @ local``."""
        local = self.rest_local() if locals_ is None else locals_
        parents = self.bones["parent"].astype(np.int64)
        world = np.empty_like(local)
        for i in bone_order(parents):
            world[i] = local[i] if parents[i] < 0 else world[parents[i]] @ local[i]
        return world

    def frame_matrices(self):
        """(frames, bones, 4, 4) bone-to-parent matrices of the animation."""
        return rest_matrices(self.frames, self.version)

    def rate(self):
        return float(self.frame_rate) if self.frame_rate is not None else DEFAULT_FRAME_RATE


def bone_order(parents):
    """Bone indices with every parent before its children. Raises ValueError naming a bone
    whose parents lead round in a circle (the reader rejects such files)."""
    parents = [int(p) for p in parents]
    n = len(parents)
    depth = [-1] * n
    for i in range(n):
        chain, j = [], i
        while 0 <= j < n and depth[j] < 0:
            chain.append(j)
            if len(chain) > n:
                raise ValueError(i)
            j = parents[j]
        d = depth[j] + 1 if 0 <= j < n else 0
        for c in reversed(chain):
            depth[c] = d
            d += 1
    return np.argsort(np.asarray(depth, np.int64), kind="stable")


def matrix_row_problems(mesh, tolerance=1e-4):
    """Messages about 4x4 matrices (version 5+: bone rests and animation frames) whose last
    row is not (0, 0, 0, 1). The spec's matrices are row-major pre-multiplication ones, the
    translation in the last column; a file written the other way round holds it in the last
    row instead, and everything it places is off by that translation."""
    if mesh.version < 5:
        return []
    with np.errstate(invalid="ignore", over="ignore"):     # NaN rows count as wrong
        return _matrix_rows(mesh, tolerance)


def _matrix_rows(mesh, tolerance):
    want = np.array([0.0, 0.0, 0.0, 1.0])
    out = []
    places = [("rest matrices", np.asarray(mesh.bones["transform"], np.float64).reshape(-1, 4, 4),
               lambda k: f"bone {k}")]
    if len(mesh.frames):
        frames = np.asarray(mesh.frames, np.float64).reshape(-1, 4, 4)
        nb = max(len(mesh.bones), 1)
        places.append(("frame matrices", frames, lambda k: f"frame {k // nb}/bone {k % nb}"))
    for what, mats, where in places:
        rows = mats[:, 3, :]
        bad = ~(np.abs(rows - want) <= tolerance).all(axis=1)
        if bad.any():
            k = int(np.argmax(bad))
            row = ", ".join(f"{x:g}" for x in rows[k])
            out.append(f"{int(bad.sum())} of {len(mats)} {what} have a last row other than "
                       f"(0, 0, 0, 1) (first: {where(k)}: ({row})): the file may store them "
                       "the other way round (translation in the last row), which places the "
                       "model wrongly")
    return out
