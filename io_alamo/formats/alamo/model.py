"""Plain records for an Alamo model (.alo): dataclasses and numpy arrays, no Blender.

Every record read from a file carries a ``layout`` (see :mod:`.layout`) that lets the writer
reproduce the file byte for byte; records made from scratch leave it ``None``.
"""

from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from .chunk_types import ChunkType
from .chunks import Chunk
from .collision import CollisionTree
from .layout import Layout

_VERTEX_COMMON = [
    ("position", "<f4", (3,)),
    ("normal", "<f4", (3,)),
    ("uv", "<f4", (4, 2)),
    ("tangent", "<f4", (3,)),
    ("binormal", "<f4", (3,)),
    ("color", "<f4", (4,)),
]
_VERTEX_BONES = [("bone_indices", "<u4", (4,)), ("bone_weights", "<f4", (4,))]

#: Vertex of a ``0x10007`` buffer (144 bytes), with the 16-byte ``unused`` field.
VERTEX_DTYPE = np.dtype(_VERTEX_COMMON + [("unused", "<f4", (4,))] + _VERTEX_BONES)
#: Vertex of a ``0x10005`` buffer (128 bytes), without ``unused``.
VERTEX_DTYPE_NO_UNUSED = np.dtype(_VERTEX_COMMON + _VERTEX_BONES)

VERTEX_CHUNK_DTYPES = {ChunkType.VERTEX_BUFFER: VERTEX_DTYPE,
                       ChunkType.VERTEX_BUFFER_NO_UNUSED: VERTEX_DTYPE_NO_UNUSED}


class ParamType(IntEnum):
    """Shader parameter kinds; the value is the ``0x101xx`` chunk type."""

    INT = ChunkType.PARAM_INT
    FLOAT = ChunkType.PARAM_FLOAT
    FLOAT3 = ChunkType.PARAM_FLOAT3
    TEXTURE = ChunkType.PARAM_TEXTURE
    FLOAT4 = ChunkType.PARAM_FLOAT4


class Billboard(IntEnum):
    """Bone billboard modes (``0x206`` bone data)."""

    DISABLE = 0
    PARALLEL = 1
    FACE = 2
    Z_AXIS_VIEW = 3
    Z_AXIS_LIGHT = 4
    Z_AXIS_WIND = 5
    SUNLIGHT_GLOW = 6
    SUN = 7


class LightType(IntEnum):
    OMNI = 0
    DIRECTIONAL = 1
    SPOT = 2


@dataclass(eq=False, slots=True)
class Bone:
    name: str
    parent: int                       # index of the parent bone, -1 for the root
    matrix: np.ndarray                # (3, 4) float32: rows of [R | t], relative to the parent
    visible: int = 1
    billboard: int = 0                # a Billboard value; 0x205 chunks have none (read as 0)
    chunk_type: int = ChunkType.BONE_DATA  # 0x206 with billboard, 0x205 without billboard
    layout: Layout | None = field(default=None, repr=False)

    def matrix4(self) -> np.ndarray:
        """The local transform as a 4x4 column-vector matrix (float64)."""
        m = np.eye(4)
        m[:3, :] = self.matrix
        return m


@dataclass(eq=False, slots=True)
class Skeleton:
    bones: list[Bone] = field(default_factory=list)
    layout: Layout | None = field(default=None, repr=False)

    def world_matrices(self) -> np.ndarray:
        """(n, 4, 4) float64 world transforms: world = parent_world @ local."""
        out = np.empty((len(self.bones), 4, 4))
        with np.errstate(over="ignore", invalid="ignore"):     # a file's NaN stays NaN
            for i, b in enumerate(self.bones):
                local = b.matrix4()
                out[i] = out[b.parent] @ local if 0 <= b.parent < i else local
        return out


@dataclass(eq=False, slots=True)
class ShaderParam:
    name: str
    type: ParamType
    # int, float32, (3,)/(4,) float32 array, or texture file name (str)
    value: int | np.float32 | np.ndarray | str
    layout: Layout | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class Material:
    shader: str
    params: list[ShaderParam] = field(default_factory=list)    # in file order
    layout: Layout | None = field(default=None, repr=False)

    def param(self, name: str) -> ShaderParam | None:
        """The first parameter called ``name`` (case-insensitive), or None."""
        low = name.lower()
        return next((p for p in self.params if p.name.lower() == low), None)


@dataclass(eq=False, slots=True)
class SubMesh:
    material: Material
    vertex_format: str
    vertices: np.ndarray                # VERTEX_DTYPE or VERTEX_DTYPE_NO_UNUSED records
    indices: np.ndarray                 # (n, 3) uint16
    bone_map: np.ndarray | None = None  # (k,) uint32 skeleton indices (0x10006), or None
    collision_tree: CollisionTree | None = None
    layout: Layout | None = field(default=None, repr=False)

    @property
    def vertex_chunk_type(self) -> ChunkType:
        if self.vertices.dtype == VERTEX_DTYPE_NO_UNUSED:
            return ChunkType.VERTEX_BUFFER_NO_UNUSED
        return ChunkType.VERTEX_BUFFER

    @property
    def is_skinned(self) -> bool:
        return self.bone_map is not None


@dataclass(eq=False, slots=True)
class Mesh:
    name: str
    submeshes: list[SubMesh] = field(default_factory=list)
    bbox_min: np.ndarray = field(default_factory=lambda: np.zeros(3, "<f4"))
    bbox_max: np.ndarray = field(default_factory=lambda: np.zeros(3, "<f4"))
    hidden: int = 0
    collision: int = 0
    unused: int = 0                     # the 0x402 dword between the box and isHidden
    layout: Layout | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class Light:
    name: str
    type: int = LightType.OMNI
    color: np.ndarray = field(default_factory=lambda: np.ones(3, "<f4"))
    intensity: np.float32 = np.float32(1.0)
    far_attenuation_end: np.float32 = np.float32(0.0)
    far_attenuation_start: np.float32 = np.float32(0.0)
    hotspot: np.float32 = np.float32(0.0)     # radians
    falloff: np.float32 = np.float32(0.0)     # radians
    layout: Layout | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class ObjectConnection:
    object: int     # index into Model.objects (meshes and lights in file order)
    bone: int
    layout: Layout | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class Proxy:
    name: str
    bone: int
    hidden: int | None = None            # None: mini-chunk 7 absent
    alt_decrease_stay_hidden: int | None = None  # None: mini-chunk 8 absent
    layout: Layout | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class Dazzle:
    name: str
    bone: int
    color: np.ndarray = field(default_factory=lambda: np.ones(3, "<f4"))
    position: np.ndarray = field(default_factory=lambda: np.zeros(3, "<f4"))
    radius: np.float32 = np.float32(1.0)
    tex_x: int = 0
    tex_y: int = 0
    tex_size: int = 1
    texture: str = ""
    frequency: np.float32 = np.float32(0.0)
    phase: np.float32 = np.float32(0.0)
    night_only: int = 0
    hidden: int = 0
    bias: np.float32 | None = None       # None: mini-chunk 13 absent (game default 1.0)
    nested: bool = True                  # mini-chunks inside a child chunk 0x0 (UaW layout)
    layout: Layout | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class Connections:
    objects: list[ObjectConnection] = field(default_factory=list)
    proxies: list[Proxy] = field(default_factory=list)
    dazzles: list[Dazzle] = field(default_factory=list)
    write_dazzle_count: bool | None = None  # write 0x601 mini 9; None: only when there are dazzles
    layout: Layout | None = field(default=None, repr=False)


@dataclass(eq=False, slots=True)
class Model:
    skeleton: Skeleton | None = field(default_factory=Skeleton)
    objects: list[Mesh | Light] = field(default_factory=list)   # in file order
    connections: Connections | None = field(default_factory=Connections)
    layout: Layout | None = field(default=None, repr=False)

    kind = "model"

    @property
    def bones(self) -> list[Bone]:
        return self.skeleton.bones if self.skeleton is not None else []

    @property
    def meshes(self) -> list[Mesh]:
        return [o for o in self.objects if isinstance(o, Mesh)]

    @property
    def lights(self) -> list[Light]:
        return [o for o in self.objects if isinstance(o, Light)]

    def object_bone(self, index: int) -> int | None:
        """The bone an object is connected to (first 0x602 naming it), or None."""
        for c in self.connections.objects if self.connections else ():
            if c.object == index:
                return c.bone
        return None

    def object_bones(self) -> dict[int, int]:
        """``object_bone`` of every object at once: {object index: bone} (one pass, for
        callers that visit every object)."""
        out = {}
        for c in self.connections.objects if self.connections else ():
            out.setdefault(c.object, c.bone)
        return out


@dataclass(eq=False, slots=True)
class ParticleEffect:
    """A particle .alo (root ``0x900``, or ``0x1500`` in Universe at War), kept as raw chunks."""

    chunks: list[Chunk]
    kind = "particle"

    @property
    def root_type(self) -> int | None:
        return self.chunks[0].type if self.chunks else None
