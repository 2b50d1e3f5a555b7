"""A small sample model and animation, made with the format layer only (no Blender).

A tank: a rigid textured hull, a turret skinned to two bones, a hidden collision box with
its collision tree, a spot light, a smoke proxy and a blinking dazzle; and an animation that
turns the turret, bobs the hull and blinks the beacon. Used by the README demo and tests.

    python -m io_alamo.formats.alamo.sample OUT_DIR
"""

import struct
import sys
from pathlib import Path

import numpy as np

from . import (VERTEX_DTYPE, AnimationData, Bone, Connections, Dazzle, Light,
               LightType, Material, Mesh, Model, ObjectConnection, ParamType, Proxy,
               ShaderParam, Skeleton, SubMesh, build_collision_tree, encode_animation, save)
from ..saving import check_overwrite

MODEL_NAME = "Sample_Tank"
FACES = np.array([  # normal, u axis, v axis of each cube face
    [[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[-1, 0, 0], [0, -1, 0], [0, 0, 1]],
    [[0, 1, 0], [-1, 0, 0], [0, 0, 1]], [[0, -1, 0], [1, 0, 0], [0, 0, 1]],
    [[0, 0, 1], [1, 0, 0], [0, 1, 0]], [[0, 0, -1], [-1, 0, 0], [0, 1, 0]],
], np.float32)


def box_vertices(center, half):
    """24 vertices (4 per face, own normals) and 12 triangles of an axis-aligned box."""
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32)
    n, u, v = FACES[:, 0], FACES[:, 1], FACES[:, 2]
    pos = n[:, None] + corners[None, :, :1] * u[:, None] + corners[None, :, 1:] * v[:, None]
    vert = np.zeros(24, VERTEX_DTYPE)
    vert["position"] = (pos.reshape(-1, 3) * np.asarray(half, np.float32)
                        + np.asarray(center, np.float32))
    vert["normal"] = np.repeat(n, 4, axis=0)
    vert["tangent"] = np.repeat(u, 4, axis=0)
    vert["binormal"] = np.repeat(v, 4, axis=0)
    vert["uv"][:, 0] = np.tile((corners + 1) / 2, (6, 1))
    vert["color"] = 1
    vert["unused"] = 1
    vert["bone_weights"][:, 0] = 1
    quad = np.array([[0, 1, 2], [0, 2, 3]])
    tris = (quad[None] + 4 * np.arange(6)[:, None, None]).reshape(-1, 3).astype("<u2")
    return vert, tris


def _translation(x, y, z):
    m = np.eye(3, 4, dtype="<f4")
    m[:, 3] = (x, y, z)
    return m


def _bbox(subs):
    p = np.concatenate([s.vertices["position"] for s in subs])
    return p.min(axis=0), p.max(axis=0)


def sample_model():
    bones = [
        Bone("Root", -1, _translation(0, 0, 0)),
        Bone("B_Hull", 0, _translation(0, 0, 0.5)),
        Bone("B_Turret", 1, _translation(0, 0, 0.75)),
        Bone("B_Barrel", 2, _translation(0.6, 0, 0.1)),
        Bone("B_Headlight", 1, _translation(1.1, 0, 0.1)),
        Bone("P_Smoke", 1, _translation(-1.0, 0, 0.3)),
        Bone("B_Beacon", 2, _translation(0, 0, 0.35)),
    ]
    textured = Material("MeshBumpColorize.fx", [
        ShaderParam("BaseTexture", ParamType.TEXTURE, f"{MODEL_NAME}.tga"),
        ShaderParam("NormalTexture", ParamType.TEXTURE, f"{MODEL_NAME}_B.tga"),
        ShaderParam("Colorization", ParamType.FLOAT4, np.array([0.2, 0.4, 1, 1], "<f4")),
        ShaderParam("Specular", ParamType.FLOAT4, np.array([0.5, 0.5, 0.5, 1], "<f4")),
        ShaderParam("Shininess", ParamType.FLOAT, np.float32(32)),
    ])
    v, t = box_vertices((0, 0, 0), (1.0, 0.6, 0.25))          # hull space of B_Hull
    hull = SubMesh(textured, "alD3dVertNU2U3U3", v, t)

    # turret: model-space positions in the bind pose; lower half on B_Turret, barrel on B_Barrel
    skin = Material("RSkinBumpColorize.fx", [
        ShaderParam("BaseTexture", ParamType.TEXTURE, f"{MODEL_NAME}.tga"),
        ShaderParam("Colorization", ParamType.FLOAT4, np.array([0.2, 0.4, 1, 1], "<f4")),
    ])
    tv, tt = box_vertices((0, 0, 1.25), (0.4, 0.4, 0.15))
    bv, bt = box_vertices((0.9, 0, 1.35), (0.5, 0.08, 0.08))
    verts = np.concatenate([tv, bv])
    verts["bone_indices"][24:, 0] = 1                       # index into the bone map
    turret = SubMesh(skin, "alD3dVertRSkinNU2U3U3", verts,
                     np.concatenate([tt, bt + 24]).astype("<u2"),
                     bone_map=np.array([2, 3], "<u4"))

    cv, ct = box_vertices((0, 0, 0.6), (1.05, 0.65, 0.6))
    cv["uv"] = 0
    coll = SubMesh(Material("MeshCollision.fx"), "alD3dVertN", cv, ct)
    coll.collision_tree = build_collision_tree(cv["position"], ct)

    meshes = [Mesh("Tank_Hull", [hull]), Mesh("Tank_Turret", [turret]),
              Mesh("Tank_COLLISION", [coll], hidden=1, collision=1)]
    for m in meshes:
        m.bbox_min, m.bbox_max = _bbox(m.submeshes)
    light = Light("Headlight", LightType.SPOT, np.array([1, 0.9, 0.7], "<f4"), np.float32(2),
                  np.float32(20), np.float32(5), np.float32(0.4), np.float32(0.7))
    conn = Connections(
        objects=[ObjectConnection(0, 1), ObjectConnection(1, 0), ObjectConnection(2, 0),
                 ObjectConnection(3, 4)],
        proxies=[Proxy("p_smoke_small_thin", 5, hidden=0, alt_decrease_stay_hidden=0)],
        dazzles=[Dazzle("FC_Beacon", 6, color=np.array([1, 0.2, 0.1], "<f4"),
                        radius=np.float32(0.3), texture="W_Dazzle.tga", tex_size=2,
                        frequency=np.float32(1.5), phase=np.float32(0), bias=np.float32(0.5))])
    return Model(Skeleton(bones), [*meshes, light], conn)


def sample_animation(model, frames=60, fps=30.0):
    """The turret turns a full circle, the hull bobs, the beacon blinks."""
    bones = model.bones
    picks = [1, 2, 6]
    n = len(picks)
    t = np.empty((n, frames, 3), np.float32)
    r = np.zeros((n, frames, 4), np.float32)
    s = np.ones((n, frames, 3), np.float32)
    phase = np.arange(frames) / frames
    for k, b in enumerate(picks):
        t[k] = bones[b].matrix[:, 3]
        r[k, :, 3] = 1
    t[0, :, 2] += 0.05 * np.sin(2 * np.pi * phase)
    angle = np.pi * phase                      # half-angle of a full turn about Z
    r[1, :, 2], r[1, :, 3] = np.sin(angle), np.cos(angle)
    visible = np.ones((n, frames), bool)
    visible[2] = (np.arange(frames) // 10) % 2 == 0
    data = AnimationData(
        fps=fps, names=[bones[b].name for b in picks], indices=np.array(picks),
        translation=t, rotation=r, scale=s, visible=visible, step=np.zeros((n, frames), bool),
        has_visibility=np.array([False, False, True]), has_step=np.zeros(n, bool))
    return encode_animation(data, 2)


def write_tga(path, rgba):
    """An uncompressed 32-bit TGA (bottom-up rows, BGRA)."""
    h, w = rgba.shape[:2]
    header = struct.pack("<BBBHHBHHHHBB", 0, 0, 2, 0, 0, 0, 0, 0, w, h, 32, 8)
    Path(path).write_bytes(header + rgba[::-1][..., [2, 1, 0, 3]].tobytes())


def sample_textures():
    y, x = np.mgrid[0:64, 0:64]
    base = np.zeros((64, 64, 4), np.uint8)
    checker = ((x // 8 + y // 8) % 2).astype(bool)
    base[..., 0] = np.where(checker, 150, 90)
    base[..., 1] = np.where(checker, 150, 100)
    base[..., 2] = np.where(checker, 140, 70)
    base[..., 3] = np.where(y < 16, 255, 0)        # alpha marks the colourised band
    normal = np.zeros((64, 64, 4), np.uint8)
    normal[...] = (128, 128, 255, 255)
    return base, normal


def write_sample(folder):
    """Write the sample model, animation and textures into ``folder``; returns the paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model = sample_model()
    alo = folder / f"{MODEL_NAME}.alo"
    ala = folder / f"{MODEL_NAME}_Turn_00.ala"
    save(model, alo)
    save(sample_animation(model), ala)
    base, normal = sample_textures()
    write_tga(folder / f"{MODEL_NAME}.tga", base)
    write_tga(folder / f"{MODEL_NAME}_B.tga", normal)
    return alo, ala


def sample_paths(folder):
    """The four files :func:`write_sample` writes."""
    folder = Path(folder)
    return [folder / f"{MODEL_NAME}.alo", folder / f"{MODEL_NAME}_Turn_00.ala",
            folder / f"{MODEL_NAME}.tga", folder / f"{MODEL_NAME}_B.tga"]


def main(argv=None) -> int:
    """``python -m io_alamo.formats.alamo.sample OUT_DIR [--overwrite]``: write the sample
    files, print their paths; files already there are replaced only with --overwrite."""
    argv = sys.argv[1:] if argv is None else list(argv)
    overwrite = "--overwrite" in argv
    argv = [a for a in argv if a != "--overwrite"]
    if len(argv) != 1 or argv[0].startswith("-"):
        out = sys.stdout if argv[:1] in (["-h"], ["--help"]) else sys.stderr
        print("usage: python -m io_alamo.formats.alamo.sample OUT_DIR [--overwrite]\n\n"
              "Write a small sample "
              f"model ({MODEL_NAME}.alo), its animation and two textures into OUT_DIR "
              "(--overwrite: replace them if they are there).", file=out)
        return 0 if out is sys.stdout else 2
    try:
        replaced = check_overwrite(sample_paths(argv[0]), overwrite)
    except OSError as e:
        print(e, file=sys.stderr)
        return 1
    for p in write_sample(argv[0]):
        print(p)
    if replaced:
        print(f"replaced {len(replaced)} existing files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
