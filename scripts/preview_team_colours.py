"""Render the material previews of Alamo models in team colours (Cycles CPU, small): one PNG
per model and colour. Run with a Python that has bpy:

    python scripts/preview_team_colours.py OUT MODEL.alo [MODEL.alo ...] [--textures DIR]

Each model is imported with its textures (beside it, in Data/Art/Textures or DIR), then
rendered with the scene's team colour set to each of ``--teams`` (faction presets of the
sidebar, or ``Own`` for each material's own Colorization); the override is a preview setting
and changes nothing the export writes."""

import argparse
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="alamo-preview-"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bpy  # noqa: E402

import io_alamo  # noqa: E402
from io_alamo.blender.alamo.importer.alo import AloImportOptions, import_alo  # noqa: E402
from io_alamo.blender.batch import render_preview  # noqa: E402
from io_alamo.blender.alamo.ui.team import PRESETS  # noqa: E402


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("models", nargs="+", type=Path)
    ap.add_argument("--textures", action="append", default=[])
    ap.add_argument("--teams", default="Empire,Rebellion")
    ap.add_argument("--size", type=int, default=256)
    args = ap.parse_args(argv)
    io_alamo.register()
    try:
        for model in args.models:
            for team in args.teams.split(","):
                bpy.ops.wm.read_factory_settings(use_empty=True)
                import_alo(bpy.context, str(model), AloImportOptions(texture_folders=args.textures))
                scene = bpy.context.scene
                if team in PRESETS:           # "Own": each material's own Colorization
                    scene.alamo_team.color = PRESETS[team]
                scene.alamo_team.override = team in PRESETS
                target = args.out / f"{model.stem}_{team}.png"
                render_preview(bpy.context, target, size=args.size, samples=16)
                print(target)
    finally:
        io_alamo.unregister()


if __name__ == "__main__":
    main(sys.argv[1:])
