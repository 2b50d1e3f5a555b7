"""A model built from nothing in Blender exports, reads back as built, and re-imports."""

import math

import numpy as np
import pytest

from io_alamo.formats.alamo import read_alo
from io_alamo.formats.alamo.validate import validate

bpy = pytest.importorskip("bpy")
mathutils = pytest.importorskip("mathutils")

N_BONES = 30                  # more than the 24 a skinned sub-mesh can use
GRID = 260                    # 260 x 260 = 67,600 vertices: more than one sub-mesh holds


def link(obj):
    bpy.context.scene.collection.objects.link(obj)
    return obj


def material(name, shader):
    mat = bpy.data.materials.new(name)
    mat.alamo.shader = shader
    return mat


def build_armature():
    arm = bpy.data.armatures.new("Rig")
    obj = link(bpy.data.objects.new("Rig", arm))
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    root = arm.edit_bones.new("Root")
    root.head, root.tail = (0, 0, 0), (0, 0, 1)
    for i in range(N_BONES):
        b = arm.edit_bones.new(f"B{i:02d}")
        b.head, b.tail = (i * 0.5, 0, 0), (i * 0.5, 0, 0.5)
        b.parent = root if i % 2 == 0 else arm.edit_bones[f"B{i - 1:02d}"]
        b.roll = 0.3 * i
    bpy.ops.object.mode_set(mode="OBJECT")
    return obj


def parent_to_bone(obj, arm, bone):
    obj.parent = arm
    obj.parent_type = "BONE"
    obj.parent_bone = bone
    obj.matrix_parent_inverse.identity()
    # a bone parent sits at the bone's tail: place the object at the armature's origin
    tail = arm.data.bones[bone].matrix_local.copy()
    tail.translation = arm.data.bones[bone].tail_local
    obj.matrix_parent_inverse = tail.inverted()


def two_material_box(arm):
    me = bpy.data.meshes.new("Hull")
    s = 1.0
    verts = [(x, y, z) for x in (-s, s) for y in (-s, s) for z in (-s, s)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    me.from_pydata(verts, [], faces)
    me.uv_layers.new(name="UVMap")
    me.materials.append(material("Hull", "MeshBumpColorize.fx"))
    me.materials.append(material("Glow", "MeshAdditive.fx"))
    me.polygons.foreach_set("material_index", [0, 0, 0, 1, 1, 0])
    obj = link(bpy.data.objects.new("Hull", me))
    parent_to_bone(obj, arm, "B03")
    obj.matrix_world = (arm.matrix_world @ mathutils.Matrix.LocRotScale(
        (1.0, 2.0, 3.0), mathutils.Euler((0.2, 0.4, 0.6)), None))
    return obj


def skinned_strip(arm):
    """One quad per bone, each weighted fully to its bone; the middle vertices blend."""
    verts, faces = [], []
    for i in range(N_BONES):
        x = i * 0.5
        k = len(verts)
        verts += [(x, -1, 0), (x + 0.4, -1, 0), (x + 0.4, -1, 1), (x, -1, 1)]
        faces.append((k, k + 1, k + 2, k + 3))
    me = bpy.data.meshes.new("Cloth")
    me.from_pydata(verts, [], faces)
    me.uv_layers.new(name="UVMap")
    me.materials.append(material("Cloth", "RSkinGloss.fx"))
    obj = link(bpy.data.objects.new("Cloth", me))
    obj.parent = arm
    for i in range(N_BONES):
        g = obj.vertex_groups.new(name=f"B{i:02d}")
        g.add([4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3], 1.0, "REPLACE")
    obj.modifiers.new("Armature", "ARMATURE").object = arm
    return obj


def big_grid(arm):
    me = bpy.data.meshes.new("Ground")
    xs, ys = np.meshgrid(np.arange(GRID, dtype=np.float32), np.arange(GRID, dtype=np.float32))
    co = np.stack([xs.ravel(), ys.ravel(), np.zeros(GRID * GRID, np.float32)], 1) * 0.1
    i = np.arange(GRID - 1)
    a = (i[:, None] * GRID + i[None, :]).ravel()          # lower-left corner of each quad
    quads = np.stack([a, a + 1, a + GRID + 1, a + GRID], 1)
    me.vertices.add(len(co))
    me.vertices.foreach_set("co", co.ravel())
    me.loops.add(quads.size)
    me.loops.foreach_set("vertex_index", quads.ravel().astype(np.int32))
    me.polygons.add(len(quads))
    me.polygons.foreach_set("loop_start", np.arange(0, quads.size, 4, dtype=np.int32))
    me.update()
    me.uv_layers.new(name="UVMap")
    me.materials.append(material("Ground", "alDefault.fx"))
    obj = link(bpy.data.objects.new("Ground", me))
    obj.parent = arm                  # on the armature, no bone: attached to the root
    obj.location = (0.0, 0.0, -2.0)
    return obj


def light_proxy_dazzle(arm):
    ld = bpy.data.lights.new("Lamp", "POINT")
    ld.color = (1.0, 0.5, 0.25)
    lamp = link(bpy.data.objects.new("Lamp", ld))
    lamp.alamo.role = "LIGHT"
    lamp.alamo.intensity = 2.5
    lamp.alamo.far_attenuation_end = 40.0
    parent_to_bone(lamp, arm, "B05")
    proxy = link(bpy.data.objects.new("Engine_Flame", None))
    proxy.alamo.role = "PROXY"
    proxy.alamo.hidden = True
    parent_to_bone(proxy, arm, "B07")
    dazzle = link(bpy.data.objects.new("Blinker", None))
    dazzle.alamo.role = "DAZZLE"
    dazzle.alamo.color = (0.0, 1.0, 0.0)
    dazzle.alamo.radius = 3.0
    dazzle.alamo.texture = "W_Dazzle.tga"
    dazzle.alamo.frequency = 2.0
    dazzle.alamo.tex_size = 4
    dazzle.alamo.tex_x = 1
    parent_to_bone(dazzle, arm, "B09")
    dazzle.location = (0.25, 0.5, 0.75)
    return lamp, proxy, dazzle


def build_scene():
    arm = build_armature()
    scene = {"arm": arm, "hull": two_material_box(arm), "cloth": skinned_strip(arm),
             "ground": big_grid(arm), "extras": light_proxy_dazzle(arm)}
    bpy.context.view_layer.update()           # world matrices of what was just placed
    return scene


def world_corners(obj):
    """Triangle corner positions in world space, as a set of rounded tuples."""
    me = obj.data
    me.calc_loop_triangles()
    tl = np.empty(len(me.loop_triangles) * 3, np.int32)
    me.loop_triangles.foreach_get("loops", tl)
    vi = np.empty(len(me.loops), np.int32)
    me.loops.foreach_get("vertex_index", vi)
    co = np.empty(len(me.vertices) * 3, np.float32)
    me.vertices.foreach_get("co", co)
    mw = np.array(obj.matrix_world)
    p = co.reshape(-1, 3)[vi[tl]].astype(np.float64) @ mw[:3, :3].T + mw[:3, 3]
    return p


def bone_worlds(model):
    worlds = []
    for b in model.bones:
        m = np.eye(4)
        m[:3, :] = b.matrix
        worlds.append(worlds[b.parent] @ m if b.parent >= 0 else m)
    return worlds


def same_point_sets(a, b, tol=1e-4):
    ka = np.unique(np.round(a / tol).astype(np.int64), axis=0)
    kb = np.unique(np.round(b / tol).astype(np.int64), axis=0)
    return len(ka) == len(kb) and np.array_equal(ka, kb)


def test_scratch_model_exports_reimports_and_matches(blender, tmp_path):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo
    scene = build_scene()
    arm = scene["arm"]
    built = {name: world_corners(scene[name]) for name in ("hull", "cloth", "ground")}
    bone_rest = {b.name: np.array(b.matrix_local) for b in arm.data.bones}
    out = tmp_path / "Scratch.alo"
    result = export_alo(bpy.context, str(out), AloExportOptions())
    model = read_alo(out.read_bytes())
    assert validate(model) == []

    # skeleton: every bone, parents first, world rest matrices as built
    names = [b.name for b in model.bones]
    assert sorted(names) == sorted(bone_rest) and len(names) == N_BONES + 1
    worlds = bone_worlds(model)
    # bone 0: the armature's Root, drawn along Blender's Z, is written as identity, as every
    # game model's bone 0 is; the other bones keep their rest
    assert names[0] == "Root" and np.array_equal(model.bones[0].matrix, np.eye(3, 4))
    bone_rest["Root"] = np.eye(4)
    for b, w in zip(model.bones, worlds):
        assert b.parent < names.index(b.name)
        assert np.allclose(w, bone_rest[b.name], atol=1e-5)

    meshes = {m.name: (i, m) for i, m in enumerate(model.objects) if hasattr(m, "submeshes")}
    assert set(meshes) == {"Hull", "Cloth", "Ground"}

    # the box: two sub-meshes (one per used material), formats from the catalogue, tangents
    i, hull = meshes["Hull"]
    assert [s.material.shader for s in hull.submeshes] == ["MeshBumpColorize.fx",
                                                           "MeshAdditive.fx"]
    assert [s.vertex_format for s in hull.submeshes] == ["alD3dVertNU2U3U3", "alD3dVertNU2"]
    assert [len(s.indices) for s in hull.submeshes] == [8, 4]
    # a cube's corners split by face normal: 4 vertices per face
    assert [len(s.vertices) for s in hull.submeshes] == [16, 8]
    t = hull.submeshes[0].vertices["tangent"]
    assert np.allclose(np.linalg.norm(t, axis=1), 1.0, atol=1e-3)
    assert names[model.object_bone(i)] == "B03"

    # the skinned strip: over 24 bones, so at least two sub-meshes with their bone maps
    i, cloth = meshes["Cloth"]
    assert len(cloth.submeshes) >= 2
    used = set()
    for s in cloth.submeshes:
        assert s.vertex_format == "alD3dVertRSkinNU2"
        assert 1 <= len(s.bone_map) <= 24
        bones = s.bone_map[s.vertices["bone_indices"][:, 0]]
        used |= {names[b] for b in bones.tolist()}
        # each vertex sits on its own bone's quad
        x = s.vertices["position"][:, 0]
        expect = np.array([int(names[b][1:]) for b in bones.tolist()])
        assert np.array_equal(np.floor(x / 0.5 + 1e-4).astype(int), expect)
    assert used == {f"B{k:02d}" for k in range(N_BONES)}

    # the big grid: split to sub-meshes of at most 65,535 vertices, nothing lost
    _, ground = meshes["Ground"]
    assert len(ground.submeshes) >= 2
    assert all(len(s.vertices) <= 65535 for s in ground.submeshes)
    assert sum(len(s.indices) for s in ground.submeshes) == 2 * (GRID - 1) ** 2

    # each mesh's triangles are where they were in the scene
    for name in ("Hull", "Cloth", "Ground"):
        k, _ = meshes[name]
        got = file_world_corners_from(model, k, worlds)
        assert same_point_sets(got, built[name.lower()]), name

    # light, proxy, dazzle on their bones
    lights = [o for o in model.objects if not hasattr(o, "submeshes")]
    assert [(lt.name, lt.type) for lt in lights] == [("Lamp", 0)]
    assert np.allclose(lights[0].color, (1.0, 0.5, 0.25)) and lights[0].intensity == 2.5
    proxies = model.connections.proxies
    assert [(p.name, names[p.bone], bool(p.hidden)) for p in proxies] == \
        [("Engine_Flame", "B07", True)]
    dazzles = model.connections.dazzles
    assert len(dazzles) == 1
    d = dazzles[0]
    assert (d.name, names[d.bone], d.texture, d.tex_size, d.tex_x) == \
        ("Blinker", "B09", "W_Dazzle.tga", 4, 1)
    dazzle_world = np.array(scene["extras"][2].matrix_world)[:3, 3]
    w = worlds[d.bone]
    assert np.allclose(w[:3, :3] @ d.position + w[:3, 3], dazzle_world, atol=1e-5)
    assert not [p for p in result.problems if "skinning" in p.text]

    # re-import: the same triangles in the same places, the same roles
    bpy.ops.wm.read_factory_settings(use_empty=True)
    import_alo(bpy.context, str(out), AloImportOptions(import_animations=False))
    for name in ("Hull", "Cloth", "Ground"):
        assert same_point_sets(world_corners(bpy.data.objects[name]), built[name.lower()]), name
    assert bpy.data.objects["Engine_Flame"].alamo.role == "PROXY"
    assert bpy.data.objects["Blinker"].alamo.role == "DAZZLE"
    assert np.allclose(np.array(bpy.data.objects["Blinker"].matrix_world)[:3, 3], dazzle_world,
                       atol=1e-5)
    assert bpy.data.objects["Lamp"].type == "LIGHT"


def file_world_corners_from(model, index, worlds):
    mesh = model.objects[index]
    bone = model.object_bone(index)
    out = []
    for s in mesh.submeshes:
        p = s.vertices["position"][s.indices.ravel().astype(int)].astype(np.float64)
        if s.bone_map is None:
            w = worlds[bone]
            p = p @ w[:3, :3].T + w[:3, 3]
        out.append(p)
    return np.concatenate(out)


def test_loose_objects_get_own_bones_when_asked(blender, tmp_path):
    from io_alamo.blender.alamo.exporter.alo import AloExportOptions, export_alo
    scene = build_scene()
    hull = scene["hull"]
    hull.parent = None
    hull.matrix_world = mathutils.Matrix.Rotation(math.radians(30), 4, "Z")
    out = tmp_path / "own.alo"
    export_alo(bpy.context, str(out), AloExportOptions(scope="SCENE", own_bones=True))
    model = read_alo(out.read_bytes())
    names = [b.name for b in model.bones]
    k = [m.name for m in model.objects].index("Hull")
    assert names[model.object_bone(k)] == "Hull"
    # and baked into the root without the option
    export_alo(bpy.context, str(out), AloExportOptions(scope="SCENE"))
    model = read_alo(out.read_bytes())
    k = [m.name for m in model.objects].index("Hull")
    assert model.object_bone(k) == 0 and "Hull" not in [b.name for b in model.bones]
    pos = model.objects[k].submeshes[0].vertices["position"]
    # rotated 30 degrees about Z, baked in: no vertex at the axis-aligned corners
    assert not np.allclose(np.abs(pos[:, :2]), 1.0)
