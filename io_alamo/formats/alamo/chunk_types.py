"""Names for the chunk types of .alo models and .ala animations, and for their mini-chunk ids.

One :class:`ChunkType` member per chunk type the readers and writers know, with what the
chunk holds (from the spec pages and FORMAT-NOTES in the shared specs). The members are
ints, so they compare equal to the bare numbers read from a file and format as ``0x..``.
Unknown chunk types stay plain ints and are kept raw.
"""

from enum import IntEnum


class ChunkType(IntEnum):
    """Alamo chunk types (the first uint32 of a chunk header)."""

    # --- .alo model: skeleton -------------------------------------------------------------
    SKELETON = 0x200                 # container: header and bones; first root of a model
    SKELETON_HEADER = 0x201          # 128 bytes: uint32 bone count, zero padded
    BONE = 0x202                     # container: one bone's name and data
    BONE_NAME = 0x203                # zero-terminated bone name
    BONE_DATA_NO_BILLBOARD = 0x205   # parent, visible, 3x4 matrix (no billboard field)
    BONE_DATA = 0x206                # parent, visible, billboard mode, 3x4 matrix
    # --- .alo model: meshes ---------------------------------------------------------------
    MESH = 0x400                     # container: name, info, material/data pairs
    MESH_NAME = 0x401                # zero-terminated mesh name
    MESH_INFO = 0x402                # 128 bytes: sub-mesh count, bounding box, hidden, collision
    SUBMESH_DATA = 0x10000           # container: header, format, buffers, bone map, tree
    SUBMESH_HEADER = 0x10001         # 128 bytes: vertex and triangle counts, zero padded
    VERTEX_FORMAT = 0x10002          # zero-terminated vertex format name (e.g. alD3dVertNU2)
    INDEX_BUFFER = 0x10004           # uint16 vertex index triples
    VERTEX_BUFFER_NO_UNUSED = 0x10005  # 128-byte vertices (no 16-byte unused field)
    BONE_MAP = 0x10006               # 1..24 uint32 skeleton bone indices of a skinned sub-mesh
    VERTEX_BUFFER = 0x10007          # 144-byte vertices
    MATERIAL = 0x10100               # container: shader name and shader parameters
    SHADER_NAME = 0x10101            # zero-terminated shader (.fx) file name
    PARAM_INT = 0x10102              # mini-chunks: parameter name (1), int32 value (2)
    PARAM_FLOAT = 0x10103            # mini-chunks: parameter name (1), float value (2)
    PARAM_FLOAT3 = 0x10104           # mini-chunks: parameter name (1), 3 floats (2)
    PARAM_TEXTURE = 0x10105          # mini-chunks: parameter name (1), texture file name (2)
    PARAM_FLOAT4 = 0x10106           # mini-chunks: parameter name (1), 4 floats (2)
    COLLISION_TREE = 0x1200          # container: header, nodes, triangle list of a sub-mesh
    COLLISION_HEADER = 0x1201        # mini-chunks: root box min, max, node and triangle counts
    COLLISION_NODES = 0x1202         # 10-byte nodes: byte box, uint16 count, uint16 link
    COLLISION_TRIANGLES = 0x1203     # uint16 triangle ids the leaves point into
    # --- .alo model: lights and connections -----------------------------------------------
    LIGHT = 0x1300                   # container: light name and info
    LIGHT_NAME = 0x1301              # zero-terminated light name
    LIGHT_INFO = 0x1302              # 36 bytes: type, colour, intensity, attenuation, cone
    CONNECTIONS = 0x600              # container: which bone each object, proxy, dazzle is on
    CONNECTIONS_HEADER = 0x601       # mini-chunks: object, proxy (and dazzle) counts
    OBJECT_CONNECTION = 0x602        # mini-chunks: object index, bone index
    PROXY = 0x603                    # mini-chunks: proxy name, bone, hidden flags
    DAZZLE = 0x604                   # mini-chunks, or a child DAZZLE_MINIS chunk holding them
    DAZZLE_MINIS = 0x0               # inside DAZZLE (Universe at War layout): the mini-chunks
    # --- particle .alo files (kept raw) ---------------------------------------------------
    PARTICLE_EFFECT = 0x900          # root of a particle effect
    PARTICLE_EFFECT_UAW = 0x1500     # root of a Universe at War particle effect
    # --- .ala animation -------------------------------------------------------------------
    ANIMATION = 0x1000               # container: the one root chunk of an animation
    ANIMATION_HEADER = 0x1001        # mini-chunks: frames, fps, bones (+ frame sizes in #2)
    BONE_ANIMATION = 0x1002          # container: one bone's header and tracks
    BONE_ANIMATION_HEADER = 0x1003   # mini-chunks: name, index, offsets, scales (+ indices #2)
    TRANSLATION_TRACK = 0x1004       # format #1: uint16 x 3 per frame
    SCALE_TRACK = 0x1005             # format #1: uint16 x 3 per frame
    ROTATION_TRACK = 0x1006          # format #1: int16 quaternion per frame, or one constant
    VISIBILITY_BITS = 0x1007         # one bit per frame, packed
    STEP_BITS = 0x1008               # one bit per frame, packed
    ROTATION_FRAMES = 0x1009         # format #2: per-frame blocks of int16 quaternions
    TRANSLATION_FRAMES = 0x100A      # format #2: per-frame blocks of uint16 translations
    SCALE_FRAMES = 0x100B            # format #2: per-frame blocks of uint16 scales


class AnimationMini(IntEnum):
    """Mini-chunk ids of ANIMATION_HEADER (0x1001) and BONE_ANIMATION_HEADER (0x1003)."""

    NUM_FRAMES = 1                   # 0x1001
    FPS = 2
    NUM_BONES = 3
    ROTATION_FRAME_SIZE = 11         # 0x1001, format #2 only
    TRANSLATION_FRAME_SIZE = 12
    SCALE_FRAME_SIZE = 13
    BONE_NAME = 4                    # 0x1003
    BONE_INDEX = 5
    TRANSLATION_OFFSET = 6
    TRANSLATION_SCALE = 7
    SCALE_OFFSET = 8
    SCALE_SCALE = 9
    UNKNOWN = 10
    TRANSLATION_INDEX = 14           # 0x1003, format #2 only
    SCALE_INDEX = 15
    ROTATION_INDEX = 16
    DEFAULT_ROTATION = 17
