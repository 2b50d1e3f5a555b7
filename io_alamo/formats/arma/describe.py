"""Readable summaries of a binarized P3D for ``python -m io_alamo info`` and ``validate``."""

from .binary import P3dFormatError
from .read import read_p3d
from .resolution import lod_name


def info_lines(data: bytes, filename: str | None = None) -> list[str]:
    model = read_p3d(data, filename=filename)
    info = model.info
    lines = [f"Binarized P3D (ODOL) version {model.version}, {len(model.lods)} LODs"]
    if model.prefix:
        lines.append(f"prefix: {model.prefix}")
    if info.skeleton.name:
        lines.append(f"skeleton: {info.skeleton.name} ({len(info.skeleton.bones)} bones)")
    lines.append(f"mass: {info.mass:g}")
    if model.animations is not None:
        lines.append(f"animations: {len(model.animations.classes)} classes")
    for i, lod in enumerate(model.lods):
        lines.append(f"LOD {i}: {lod_name(lod.resolution)} (resolution {lod.resolution:g}): "
                     f"{len(lod.vertices):,} vertices, {len(lod.faces):,} faces, "
                     f"{len(lod.uv_sets)} UV sets, {len(lod.sections)} sections")
        for t in filter(None, lod.textures):
            lines.append(f"  texture: {t}")
        for m in lod.materials:
            lines.append(f"  material: {m.path}")
        for p in lod.proxies:
            lines.append(f"  proxy: {p.path} #{p.sequence_id}")
        if lod.selections:
            lines.append("  named selections: " + ", ".join(s.name for s in lod.selections))
    lines += [f"warning: {w}" for w in model.warnings]
    return lines


def problems(data: bytes, filename: str | None = None) -> list[str]:
    """What is wrong with the file, one line each (warnings included); [] when it is fine."""
    try:
        model = read_p3d(data, filename=filename)
    except P3dFormatError as e:
        return [str(e)]
    return [f"warning: {w}" for w in model.warnings]
