"""The mini-chunk schemas of .alo data chunks, ``{mini type: (field, kind)}``: what the
reader decodes, the writer encodes and ``dump`` shows, kept here once so that none of the
three imports another for them."""

from .chunk_types import ChunkType
from .model import ParamType

__all__ = ["COLLISION_HEADER_SCHEMA", "CONNECTIONS_HEADER_SCHEMA", "DAZZLE_SCHEMA",
           "MODEL_MINI_SCHEMAS", "OBJECT_CONNECTION_SCHEMA", "PARAM_SCHEMAS", "PROXY_SCHEMA"]

PARAM_SCHEMAS = {
    ParamType.INT: {1: ("name", "str"), 2: ("value", "i32")},
    ParamType.FLOAT: {1: ("name", "str"), 2: ("value", "f32")},
    ParamType.FLOAT3: {1: ("name", "str"), 2: ("value", "vec3")},
    ParamType.FLOAT4: {1: ("name", "str"), 2: ("value", "vec4")},
    ParamType.TEXTURE: {1: ("name", "str"), 2: ("value", "str")},
}
COLLISION_HEADER_SCHEMA = {0: ("box_min", "vec3"), 1: ("box_max", "vec3"),
                           2: ("nodes", "u32"), 3: ("triangles", "u32")}
CONNECTIONS_HEADER_SCHEMA = {1: ("objects", "u32"), 4: ("proxies", "u32"), 9: ("dazzles", "u32")}
OBJECT_CONNECTION_SCHEMA = {2: ("object", "u32"), 3: ("bone", "u32")}
PROXY_SCHEMA = {5: ("name", "str"), 6: ("bone", "u32"), 7: ("hidden", "u32"),
                8: ("alt_decrease_stay_hidden", "u32")}
DAZZLE_SCHEMA = {
    0: ("color", "vec3"), 1: ("position", "vec3"), 2: ("radius", "f32"), 3: ("tex_x", "u32"),
    4: ("tex_y", "u32"), 6: ("tex_size", "u32"), 5: ("texture", "str"), 7: ("frequency", "f32"),
    8: ("phase", "f32"), 9: ("night_only", "u32"), 10: ("bone", "u32"), 11: ("name", "str"),
    12: ("hidden", "u32"), 13: ("bias", "f32"),
}

# The schema of each model data chunk that holds mini-chunks, by its chunk type (dump's view).
MODEL_MINI_SCHEMAS = {ChunkType.CONNECTIONS_HEADER: CONNECTIONS_HEADER_SCHEMA,
                      ChunkType.OBJECT_CONNECTION: OBJECT_CONNECTION_SCHEMA,
                      ChunkType.PROXY: PROXY_SCHEMA, ChunkType.DAZZLE: DAZZLE_SCHEMA,
                      ChunkType.COLLISION_HEADER: COLLISION_HEADER_SCHEMA,
                      **{int(k): v for k, v in PARAM_SCHEMAS.items()}}
