"""What a binarized P3D holds, as plain records. Coordinates stay in the file's axes
(y up, left-handed); the Blender layer converts them."""

from dataclasses import dataclass, field
from typing import Optional

import numpy as np


@dataclass(slots=True)
class Skeleton:
    name: str = ""
    is_discrete: bool = False
    bones: list = field(default_factory=list)        # (bone name, parent name) pairs
    pivots: str = ""


@dataclass(slots=True)
class ModelInfo:
    """The model-wide block after the resolutions (LOD indices, mass, boxes, skeleton)."""
    bounding_sphere: float = 0.0
    geometry_sphere: float = 0.0
    bbox_min: np.ndarray = None
    bbox_max: np.ndarray = None
    bounding_center: np.ndarray = None
    geometry_center: np.ndarray = None
    center_of_mass: np.ndarray = None
    mass: float = 0.0
    armor: float = 0.0
    map_type: int = 0
    class_name: str = ""
    damage: str = ""
    skeleton: Skeleton = field(default_factory=Skeleton)
    lod_indices: dict = field(default_factory=dict)  # e.g. "memory" -> LOD index (255: none)
    values: dict = field(default_factory=dict)       # every other field, by name


@dataclass(slots=True)
class AnimationClass:
    kind: int                  # 0-3 rotation, 4-7 translation, 8 direct, 9 hide
    name: str
    source: str
    values: tuple              # min/max phase and value, then the kind's own floats


@dataclass(slots=True)
class Animations:
    classes: list = field(default_factory=list)
    bones_to_anims: list = field(default_factory=list)   # per LOD: per bone: class indices
    anims_to_bones: list = field(default_factory=list)   # per LOD: per class: bone index


@dataclass(slots=True)
class LodDefaults:
    """What the header says about a LOD that is loaded on demand (not "permanent")."""
    face_count: int
    color: int
    special: int
    or_hints: int
    has_skeleton: bool
    vertex_count: Optional[int] = None
    face_area: Optional[float] = None


@dataclass(slots=True)
class Proxy:
    path: str                  # the proxied model, e.g. "\\a3\\data_f\\proxies\\gunner"
    matrix: np.ndarray         # 4x4, file axes, translation in the last column
    sequence_id: int
    selection_index: int
    bone_index: int
    section_index: int


@dataclass(slots=True)
class StageTexture:
    path: str
    filter: int = 3
    stage_id: int = 0
    world_env_map: bool = False


@dataclass(slots=True)
class Material:
    """A .rvmat as binarized into the LOD."""
    path: str
    version: int
    colors: dict               # emissive, ambient, diffuse, ... -> (r, g, b, a)
    specular_power: float
    pixel_shader: int
    vertex_shader: int
    surface: str
    render_flags: int
    stages: list               # StageTexture
    uv_sources: list           # per stage transform: the UV set it reads
    stage_ti: Optional[StageTexture] = None


@dataclass(slots=True)
class Section:
    """Consecutive faces drawn with one texture and material."""
    first_face: int
    end_face: int              # one past the last
    texture_index: int
    material_index: int
    material_path: str         # the material named inline when material_index is -1
    special: int
    area_over_tex: tuple = ()


@dataclass(slots=True)
class NamedSelection:
    name: str
    faces: np.ndarray          # face indices
    vertices: np.ndarray       # vertex indices
    weights: np.ndarray        # one byte per selected vertex (255 = full), or empty
    sections: np.ndarray
    is_sectional: bool


@dataclass(slots=True)
class Frame:
    time: float
    points: np.ndarray         # (n, 3)


@dataclass(slots=True)
class Faces:
    """Triangles and quads: ``sizes[i]`` corners of face i, its corners at
    ``indices[starts[i]:starts[i] + sizes[i]]``."""
    sizes: np.ndarray
    starts: np.ndarray
    indices: np.ndarray
    corners: np.ndarray = field(default=None, repr=False, compare=False)   # see face_corners

    def __len__(self):
        return len(self.sizes)


@dataclass(slots=True)
class Lod:
    resolution: float
    offset: int
    end: int
    proxies: list = field(default_factory=list)
    textures: list = field(default_factory=list)
    materials: list = field(default_factory=list)
    faces: Faces = None
    sections: list = field(default_factory=list)
    selections: list = field(default_factory=list)
    properties: list = field(default_factory=list)       # (name, value) pairs
    frames: list = field(default_factory=list)
    vertices: np.ndarray = None                          # (n, 3) float32
    normals: np.ndarray = None                           # (n, 3) float32, or (0, 3)
    uv_sets: list = field(default_factory=list)          # (n, 2) float32 each, v down
    bone_weights: np.ndarray = None                      # (n, 4, 2) uint8 (bone, weight)
    bone_counts: np.ndarray = None                       # (n,) weights used per vertex
    point_flags: np.ndarray = None                       # (n,) uint32
    bone_map: np.ndarray = None                          # LOD bone -> skeleton bone
    bbox: tuple = ()                                     # min, max, centre, radius
    special: int = 0


@dataclass(slots=True)
class P3dModel:
    version: int
    resolutions: np.ndarray
    info: ModelInfo
    lods: list
    animations: Optional[Animations] = None
    prefix: str = ""
    app_id: int = 0
    defaults: list = field(default_factory=list)         # LodDefaults or None per LOD
    warnings: list = field(default_factory=list)
