"""Materials (.rvmat files) as binarized into each LOD. Arma gates fields by the material's
own version number; DayZ (ODOL 53, 54) has its own colour block and extra values."""

from .records import Material, StageTexture

_ARMA_COLORS = ("emissive", "ambient", "diffuse", "forced_diffuse", "specular", "specular2")
_DAYZ_COLORS = ("emissive", "ambient", "diffuse", "forced_diffuse", "specular", "emissive2",
                "unknown_color", "specular2")
DAYZ_EXTRA_VERSION = 20      # DayZ materials from this version carry 12 more values
MAX_STAGES = 64


def _color(r):
    return tuple(float(x) for x in r.floats(4))


def _stage_texture(r, version):
    filt = r.u32() if version >= 5 else 3
    path = r.asciiz()
    stage_id = r.u32() if version >= 8 else 0
    env = r.boolean() if version >= 11 else False
    return StageTexture(path, filt, stage_id, env)


def _stage_transform(r):
    uv_source = r.u32()
    r.take(48, "stage transform matrix")
    return uv_source


def _stage_count(r, what):
    n = r.u32()
    if n > MAX_STAGES:
        raise r.error(f"a material with {n:,} {what} (at most {MAX_STAGES} expected)")
    return n


def read_material(r):
    if r.version in (53, 54):
        return _read_dayz_material(r)
    path = r.asciiz()
    with r.enter(f"material {path!r}"):
        version = r.u32()
        colors = {name: _color(r) for name in _ARMA_COLORS}
        power = r.f32()
        pixel, vertex = r.u32(), r.u32()
        r.u32(), r.u32()                          # main light, fog mode
        if version == 3:
            r.boolean()
        surface = r.asciiz() if version >= 6 else ""
        flags = 0
        if version >= 4:
            r.u32()                               # number of render flags
            flags = r.u32()
        n_stages = _stage_count(r, "stages") if version > 6 else 0
        n_transforms = _stage_count(r, "stage transforms") if version > 8 else n_stages
        stages, sources = [], []
        if version < 8:
            for _ in range(n_stages):
                sources.append(_stage_transform(r))
                stages.append(_stage_texture(r, version))
        else:
            stages = [_stage_texture(r, version) for _ in range(n_stages)]
            sources = [_stage_transform(r) for _ in range(n_transforms)]
        ti = _stage_texture(r, version) if version >= 10 else None
        return Material(path, version, colors, power, pixel, vertex, surface, flags,
                        stages, sources, ti)


def _read_dayz_material(r):
    path = r.asciiz()
    with r.enter(f"material {path!r} (DayZ)"):
        version = r.u32()
        colors = {name: _color(r) for name in _DAYZ_COLORS[:7]}
        colors["specular2"] = _color(r)
        power = r.f32()
        r.take(8, "material values")
        colors["unknown_color2"] = _color(r)
        if version >= DAYZ_EXTRA_VERSION:
            r.take(48, "material values")
        pixel, vertex = r.u32(), r.u32()
        r.u32(), r.u32()                          # main light, fog mode
        surface = r.asciiz()
        r.u32()
        flags = r.u32()
        n_stages = _stage_count(r, "stages")
        n_transforms = _stage_count(r, "stage transforms")
        stages = [_stage_texture(r, 11) for _ in range(n_stages)]
        sources = [_stage_transform(r) for _ in range(n_transforms)]
        ti = _stage_texture(r, 11)
        return Material(path, version, colors, power, pixel, vertex, surface, flags,
                        stages, sources, ti)
