"""The model-wide part of a binarized P3D: model info, skeleton, animations and the table of
LOD addresses. Versions 53 and 54 are DayZ's, whose model info is laid out differently."""

from .records import AnimationClass, Animations, LodDefaults, ModelInfo, Skeleton

# the LOD indices stored as single bytes, in file order (Arma; DayZ differs, see below)
_LOD_INDEX_NAMES = ("memory", "geometry", "geometry_fire", "geometry_view",
                    "geometry_view_pilot", "geometry_view_gunner", "unknown",
                    "geometry_view_cargo", "land_contact", "roadway", "paths", "hitpoints")
ANIM_DIRECT, ANIM_HIDE = 8, 9


def is_dayz(version):
    return version in (53, 54)


def read_skeleton(r):
    with r.enter("skeleton"):
        sk = Skeleton(name=r.asciiz())
        if not sk.name:
            return sk
        sk.is_discrete = r.boolean()
        n = r.count("bones", 2)
        sk.bones = [(r.asciiz(), r.asciiz()) for _ in range(n)]
        if r.version > 40:
            sk.pivots = r.asciiz()
        return sk


def _common_start(r, info):
    v = info.values
    v["special"] = r.i32()
    info.bounding_sphere = r.f32()
    info.geometry_sphere = r.f32()
    v["remarks"] = r.i32()
    v["and_hints"] = r.u32()
    v["or_hints"] = r.u32()
    v["aiming_center"] = r.vec3()
    v["map_icon_color"] = r.u32()
    v["map_selected_color"] = r.u32()
    v["view_density"] = r.f32()
    info.bbox_min = r.vec3()
    info.bbox_max = r.vec3()


def _centres(r, info):
    v = info.values
    info.bounding_center = r.vec3()
    info.geometry_center = r.vec3()
    info.center_of_mass = r.vec3()
    v["inv_inertia"] = r.floats(9).reshape(3, 3)
    for name in ("auto_center", "lock_auto_center", "can_occlude", "can_be_occluded"):
        v[name] = r.boolean()


def _shading_and_mass(r, info):
    v = info.values
    if r.version >= 42:
        for name in ("ht_min", "ht_max", "af_max", "mf_max"):
            v[name] = r.f32()
    if r.version >= 43:
        v["m_fact"], v["t_body"] = r.f32(), r.f32()
    if r.version >= 33:
        v["force_not_alpha"] = r.boolean()
    if r.version >= 37:
        v["sb_source"] = r.i32()
        v["prefer_shadow_volume"] = r.boolean()
    if r.version >= 48:
        v["shadow_offset"] = r.f32()
    v["animated"] = r.boolean()
    info.skeleton = read_skeleton(r)
    info.map_type = r.u8()
    n, _ = r.packed_array(4, "mass array")
    v["mass_array_count"] = n
    info.mass = r.f32()
    v["inv_mass"] = r.f32()
    info.armor = r.f32()
    v["inv_armor"] = r.f32()


def _tail(r, info, lod_count, names):
    for name in names:
        info.lod_indices[name] = r.u8()
    v = info.values
    v["min_shadow"] = r.u32()
    if r.version >= 38:
        v["can_blend"] = r.boolean()
    info.class_name = r.asciiz()
    info.damage = r.asciiz()
    v["frequent"] = r.boolean()
    if r.version >= 31:
        v["unknown_31"] = r.u32()
    if r.version >= 57:
        for name in ("preferred_shadow_volume_lod", "preferred_shadow_buffer_lod",
                     "preferred_shadow_buffer_lod_visual"):
            r.need(4 * lod_count, name)
            v[name] = [r.i32() for _ in range(lod_count)]


def read_model_info(r, lod_count):
    """Arma's model info (every version but DayZ's 53 and 54)."""
    with r.enter("model info"):
        info = ModelInfo()
        v = info.values
        _common_start(r, info)
        if r.version >= 70:
            v["lod_density_coef"] = r.f32()
        if r.version >= 71:
            v["draw_importance"] = r.f32()
        if r.version >= 52:
            v["bbox_min_visual"], v["bbox_max_visual"] = r.vec3(), r.vec3()
        _centres(r, info)
        if r.version >= 73:
            v["ai_covers"] = r.boolean()
        _shading_and_mass(r, info)
        if r.version >= 72:
            v["explosion_shielding"] = r.f32()
        names = list(_LOD_INDEX_NAMES)
        if r.version >= 54:
            names.insert(0, "geometry_phys")
        if r.version >= 53:
            names.insert(0, "geometry_simple")
        _tail(r, info, lod_count, names)
        return info


def read_model_info_dayz(r, lod_count):
    """DayZ's model info (versions 53, 54): visual boxes always, an extra flag and float
    after the occlusion flags, no simple-geometry index, a 32-bit word after it all."""
    with r.enter("model info (DayZ)"):
        info = ModelInfo()
        v = info.values
        _common_start(r, info)
        v["bbox_min_visual"], v["bbox_max_visual"] = r.vec3(), r.vec3()
        _centres(r, info)
        v["unknown_flag"] = r.boolean()
        v["unknown_float"] = r.f32()
        _shading_and_mass(r, info)
        names = ["memory", "geometry"]
        if r.version >= 54:
            names.append("unknown_lod_1")
        names += ["geometry_fire", "geometry_view", "geometry_view_pilot",
                  "geometry_view_gunner", "unknown", "geometry_view_cargo", "land_contact",
                  "roadway", "paths", "hitpoints"]
        _tail(r, info, lod_count, names)
        return info


def _animation_class(r):
    kind = r.u32()
    name, source = r.asciiz(), r.asciiz()
    values = [r.f32() for _ in range(4)]          # min/max phase, min/max value
    if r.version >= 56:
        values += [r.f32(), r.f32()]              # period, initial phase
    values.append(float(r.u32()))                 # source address (clamp, loop, mirror)
    if kind <= 7:
        values += [r.f32(), r.f32()]              # angles or offsets
    elif kind == ANIM_DIRECT:
        values += [r.f32() for _ in range(8)]     # axis position, direction, angle, offset
    elif kind == ANIM_HIDE:
        values.append(r.f32())
        if r.version >= 55:
            values.append(r.f32())
    else:
        raise r.error(f"animation {name!r} has unknown type {kind}")
    return AnimationClass(kind, name, source, tuple(values))


def read_animations(r):
    with r.enter("animations"):
        anims = Animations()
        n = r.count("animation classes", 30)
        anims.classes = [_animation_class(r) for _ in range(n)]
        lods = r.i32()
        if lods < 0:
            return anims                          # -1: no classes, nothing follows
        if lods * 4 > r.remaining():
            raise r.error(f"{lods:,} LODs of animation tables do not fit")
        for _ in range(lods):
            bones = r.count("bones", 4)
            table = []
            for _ in range(bones):
                k = r.count("bone animations", 4)
                table.append([r.u32() for _ in range(k)])
            anims.bones_to_anims.append(table)
        for _ in range(lods):
            row = []
            for cls in anims.classes:
                bone = r.i32()
                if bone != -1 and cls.kind not in (ANIM_DIRECT, ANIM_HIDE):
                    r.take(24, "animation axis")  # axis position and direction
                row.append(bone)
            anims.anims_to_bones.append(row)
        return anims


def read_lod_defaults(r, lod_count):
    """Per LOD: permanent (loaded with the model) or described here (loaded on demand)."""
    with r.enter("LOD defaults"):
        permanent = [r.boolean() for _ in range(lod_count)]
        out = []
        for keep in permanent:
            if keep:
                out.append(None)
                continue
            d = LodDefaults(r.u32(), r.u32(), r.i32(), r.u32(),
                            r.boolean() if r.version >= 39 else False)
            if r.version >= 51:
                d.vertex_count, d.face_area = r.u32(), r.f32()
            out.append(d)
        return out
