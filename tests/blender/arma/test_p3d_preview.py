"""The batch's preview render of an Arma vehicle with big textures (issue 44 point 5): Cycles
is handed each PAA's own small mipmap (a single-level PAA shrunk once, another image scaled
by Blender) in place of the full-size image, and the scene is left as imported: the same
images in the same nodes, no stand-in left."""

import bpy
import numpy as np
from p3d_vehicle import build_vehicle
from paa_build import DXT1, build_paa, solid_dxt1

from io_alamo.blender import batch
from io_alamo.blender.alamo import batch as alamo_batch
from io_alamo.blender.arma.importer import import_p3d
from io_alamo.blender.arma.preview_images import shrunk
from io_alamo.blender.preview_images import PREVIEW_NAME, small_images

SIDE = 1024                               # over the 256-pixel preview's limit (512)
BLUE, RED, GREEN = 0x001F, 0xF800, 0x07E0


def _chain_paa(top, below):
    """A DXT1 PAA of SIDE pixels in colour ``top`` whose smaller mipmaps are all ``below``."""
    levels = [(s, s, solid_dxt1(s, s, below)) for s in (SIDE >> k for k in range(1, 9))]
    return build_paa(DXT1, SIDE, SIDE, solid_dxt1(SIDE, SIDE, top), compress=True, more=levels)


def _png(path, rgb):
    img = bpy.data.images.new("png", SIDE, SIDE)
    img.pixels.foreach_set(np.tile(np.array([*rgb, 1.0], np.float32), SIDE * SIDE))
    img.filepath_raw = str(path)
    img.file_format = "PNG"
    img.save()
    bpy.data.images.remove(img)


def big_textured_truck(folder):
    """The spec truck whose cab shows a PAA that is blue at full size and red in every
    smaller mipmap; its cargo boxes a single-level green PAA and a yellow PNG (as big)."""
    path = build_vehicle(folder, textures=4, side=64)
    data = folder / "data"
    (data / "part00_co.paa").write_bytes(_chain_paa(BLUE, RED))
    (data / "part01_co.paa").write_bytes(build_paa(DXT1, SIDE, SIDE,
                                                   solid_dxt1(SIDE, SIDE, GREEN), True))
    (data / "part02_co.paa").unlink()
    _png(data / "part02_co.png", (1.0, 1.0, 0.0))
    return path


def _scene_state():
    """What the import made, as names: objects, images (users, packed bytes, source), and
    the image of every image node of every material (the render's camera, sun and result
    aside)."""
    objects = sorted(o.name for o in bpy.data.objects if not o.name.startswith("Alamo Preview"))
    images = sorted((i.name, i.users, i.packed_file.size if i.packed_file else 0, i.source,
                     i.filepath_raw) for i in bpy.data.images if i.type != "RENDER_RESULT")
    nodes = sorted((m.name, n.name, n.image.name) for m in bpy.data.materials if m.node_tree
                   for n in m.node_tree.nodes if n.type == "TEX_IMAGE" and n.image)
    return objects, images, nodes


def _colour_shares(png):
    img = bpy.data.images.load(str(png))
    px = np.empty(len(img.pixels), np.float32)
    img.pixels.foreach_get(px)
    bpy.data.images.remove(img)
    rgb = px.reshape(-1, 4)[:, :3]
    ranked = np.sort(rgb, axis=1)
    clear = ranked[:, 2] - ranked[:, 1] > 0.15        # one channel well above the others
    strong = rgb.argmax(axis=1)
    return {name: int((clear & (strong == k)).sum())
            for k, name in enumerate(("red", "green", "blue"))}


def test_batch_preview_renders_small_mipmaps_and_leaves_the_scene_as_imported(
        blender, tmp_path, monkeypatch):
    truck = big_textured_truck(tmp_path / "truck")
    out = tmp_path / "out"
    before = []
    real = alamo_batch.render_preview

    def preview(*args, **kwargs):                  # the scene just before the preview
        before.append(_scene_state())
        return real(*args, **kwargs)
    monkeypatch.setattr(alamo_batch, "render_preview", preview)
    assert batch.run(["import", str(truck), "--out", str(out), "--preview"], "test") == 0
    assert before and _scene_state() == before[0]      # unchanged by the preview
    assert not [i.name for i in bpy.data.images if i.name.endswith(PREVIEW_NAME)]
    for name in ("part00_co.dds", "part01_co.dds"):     # still the full-size blocks
        assert bpy.data.images[name].packed_file.size > SIDE * SIDE // 2
    shares = _colour_shares(out / "truck.png")
    assert shares["red"] > 100                  # the cab: its mipmap, not its top level
    assert shares["blue"] < shares["red"] // 20
    assert shares["green"] > 50                 # the single-level PAA, shrunk
    bpy.ops.wm.open_mainfile(filepath=str(out / "truck.blend"))
    assert bpy.data.images["part00_co.dds"].size[0] == SIDE     # the .blend: full size
    assert not [i.name for i in bpy.data.images if i.name.endswith(PREVIEW_NAME)]


def test_stand_ins_are_small_and_the_big_paa_images_are_never_decoded(blender, tmp_path):
    truck = big_textured_truck(tmp_path / "truck")
    bpy.ops.wm.read_factory_settings(use_empty=True)
    import_p3d(bpy.context, str(truck))
    before = _scene_state()
    paa = [bpy.data.images[n] for n in ("part00_co.dds", "part01_co.dds")]
    assert not any(i.has_data for i in paa)
    with small_images(bpy.context.scene.objects, 512):
        shown = {n.image.name: n.image for m in bpy.data.materials if m.node_tree
                 for n in m.node_tree.nodes if n.type == "TEX_IMAGE" and n.image}
        assert not any(i.has_data for i in paa)         # the stand-ins read only the files
        for name in ("part00_co.dds", "part01_co.dds", "part02_co.dds"):
            assert name not in shown
            assert tuple(shown[name + PREVIEW_NAME].size) == (512, 512)
        assert "part03_co.dds" in shown                  # 64 pixels: shown as it is
        px = np.empty(512 * 512 * 4, np.float32)
        shown["part00_co.dds" + PREVIEW_NAME].pixels.foreach_get(px)
        assert px[0] > 0.9 and px[2] < 0.1               # the red mipmap, not the blue top
    assert _scene_state() == before


def test_shrunk_averages_whole_squares():
    rng = np.random.default_rng(0)
    for shape, limit in (((64, 64, 4), 16), ((70, 9, 4), 16), ((5, 40, 4), 8), ((300, 200, 4), 8)):
        rgba = rng.integers(0, 256, shape, dtype=np.uint8)
        k = -(-max(shape[:2]) // limit)
        kh, kw = min(k, shape[0]), min(k, shape[1])
        h2, w2 = shape[0] // kh, shape[1] // kw
        want = rgba[:h2 * kh, :w2 * kw].reshape(h2, kh, w2, kw, 4).astype(int)
        got = shrunk(rgba, limit)
        assert got.shape == (h2, w2, 4) and max(h2, w2) <= limit
        assert np.array_equal(got, want.sum(axis=(1, 3)) // (kh * kw))
