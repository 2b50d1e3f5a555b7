"""Binarized P3D (ODOL) models of Bohemia Interactive's engines, read-only, stdlib + numpy.

    model = read_p3d(data)          # P3dModel: model info, skeleton, every LOD
    lod_name(model.lods[0].resolution)   # "1.000", "Geometry", "Memory", ...
"""

from .binary import P3dFormatError
from .markers import PROXY_SECTION_FLAG, proxy_marker_faces
from .paa import PaaFormatError, PaaTexture, read_paa
from .read import read_p3d
from .records import (Faces, Frame, Lod, Material, ModelInfo, NamedSelection, P3dModel, Proxy,
                      Section, Skeleton, StageTexture)
from .resolution import is_shadow, is_visual, lod_name

__all__ = [
    "PROXY_SECTION_FLAG", "Faces", "Frame", "Lod", "Material", "ModelInfo", "NamedSelection",
    "P3dFormatError", "P3dModel", "PaaFormatError", "PaaTexture", "Proxy", "Section", "Skeleton",
    "StageTexture", "is_shadow", "is_visual", "lod_name", "proxy_marker_faces", "read_p3d",
    "read_paa",
]
