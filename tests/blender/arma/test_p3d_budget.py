"""An Alamo budget for a converted vehicle (issue 43, point 3): Write Textures caps the
largest side (1,024 by default; DXT1 where alpha is 255 everywhere) and reports the bytes
written; a triangle budget per LOD writes the drawn meshes decimated, the big ones giving up
triangles and the small parts keeping theirs; the scene (images, meshes, modifiers) stays as
it was."""

import bpy
import numpy as np
from p3d_vehicle import build_vehicle

from io_alamo.blender.alamo.exporter.budget import MODIFIER, triangle_count
from io_alamo.blender.alamo.exporter.textures import DEFAULT_MAX_SIZE, within
from io_alamo.blender.arma.importer import import_p3d
from io_alamo.formats.alamo import read_alo
from io_alamo.formats.alamo.dds import describe_dds


def test_within_halves_until_it_fits():
    rgba = np.zeros((512, 256, 4), np.uint8)
    assert within(rgba, 128).shape == (128, 64, 4)
    assert within(rgba, 0) is rgba and within(rgba, 1024) is rgba
    assert DEFAULT_MAX_SIZE == 1024


def _drawn_triangles(model):
    total = 0
    for mesh in model.meshes:
        for sub in mesh.submeshes:
            shader = sub.material.shader.lower()
            if "shadow" not in shader and "collision" not in shader and not mesh.collision:
                total += sub.indices.size // 3
    return total


def test_export_within_a_texture_and_triangle_budget(blender, tmp_path):
    truck = build_vehicle(tmp_path / "mod", textures=4, side=64, big_side=512, big=1,
                          hull=3000)
    res = import_p3d(bpy.context, str(truck))
    images = {img.name: tuple(img.size) for img in bpy.data.images}
    meshes = {o.name: triangle_count(o.data) for o in res.objects if o.type == "MESH"}
    plain = tmp_path / "plain" / "truck.alo"
    plain.parent.mkdir()
    assert bpy.ops.export_scene.alo(filepath=str(plain), write_textures=True,
                                    texture_size=0) == {"FINISHED"}
    out = tmp_path / "budget" / "truck.alo"
    out.parent.mkdir()
    assert bpy.ops.export_scene.alo(filepath=str(out), write_textures=True, texture_size=256,
                                    max_triangles=1000) == {"FINISHED"}
    sizes = {p.name: describe_dds(p.read_bytes()) for p in out.parent.glob("*.dds")}
    plain_sizes = {p.name: describe_dds(p.read_bytes()) for p in plain.parent.glob("*.dds")}
    assert plain_sizes["part00_co.dds"][:2] == (512, 512)
    assert sizes["part00_co.dds"][:2] == (256, 256) and sizes["part01_co.dds"][:2] == (64, 64)
    assert sizes["part01_co.dds"][2] == "DXT1" and sizes["part03_co.dds"][2] == "DXT5"  # alpha
    before = _drawn_triangles(read_alo(plain.read_bytes()))
    after = _drawn_triangles(read_alo(out.read_bytes()))
    assert before > 3000 and after <= 1100 and after >= 500
    # the small parts (wheels, hubs, frame: a dozen triangles each) keep all theirs
    small = {m.name: sum(s.indices.size for s in m.submeshes) // 3
             for m in read_alo(out.read_bytes()).meshes if "LOD" not in m.name}
    assert small and all(n == 12 for n in small.values()), small
    # the scene as it was: images at their size, every triangle, no modifier left
    assert {img.name: tuple(img.size) for img in bpy.data.images} == images
    assert {o.name: triangle_count(o.data) for o in res.objects if o.type == "MESH"} == meshes
    assert not [m for o in res.objects for m in getattr(o, "modifiers", ()) if m.name == MODIFIER]
