"""The Alamo format layer: lossless reading and writing of .alo and .ala, stdlib + numpy only.

Bytes in, records out, and back::

    model = read_alo(data)          # Model, or ParticleEffect for particle .alo files
    data = write_alo(model)
    anim = read_ala(data)           # Animation (format #1 or #2)
    arrays = decode_animation(anim) # per-bone, per-frame floats
"""

from ..errors import AlamoFormatError, FormatError
from .ala_codec import AnimationData, decode_animation, decode_bone, encode_animation
from .alo_read import read_alo
from .alo_write import write_alo
from .animation import Animation, BoneAnimation, convert_animation, read_ala, write_ala
from .chunk_types import AnimationMini, ChunkType
from .chunks import Chunk, Mini, read_chunks, read_minis, write_chunks, write_minis
from .collision import CollisionTree, build_collision_tree, check_collision_tree
from .files import load, load_ala, load_alo, read_any, save
from .model import (VERTEX_DTYPE, VERTEX_DTYPE_NO_UNUSED, Billboard, Bone, Connections, Dazzle,
                    Light, LightType, Material, Mesh, Model, ObjectConnection, ParamType,
                    ParticleEffect, Proxy, ShaderParam, Skeleton, SubMesh)

__all__ = [
    "AlamoFormatError", "Animation", "AnimationData", "AnimationMini", "Billboard", "Bone",
    "BoneAnimation", "Chunk", "ChunkType", "CollisionTree", "Connections", "Dazzle", "FormatError",
    "Light", "LightType", "Material", "Mesh", "Mini", "Model", "ObjectConnection", "ParamType",
    "ParticleEffect", "Proxy", "ShaderParam", "Skeleton", "SubMesh", "VERTEX_DTYPE",
    "VERTEX_DTYPE_NO_UNUSED", "build_collision_tree", "check_collision_tree", "convert_animation",
    "decode_animation", "decode_bone", "encode_animation", "load", "load_ala", "load_alo",
    "read_ala", "read_alo", "read_any", "read_chunks", "read_minis", "save", "write_ala",
    "write_alo", "write_chunks", "write_minis",
]
