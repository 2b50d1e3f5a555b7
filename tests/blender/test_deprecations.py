"""Nothing of io_alamo uses what Blender 5.0 deprecates (issue 36): ``Material.use_nodes``
warns there ("expected to be removed in Blender 6.0"); compat.uses_nodes decides per version."""

import re
import warnings
from pathlib import Path

import pytest

bpy = pytest.importorskip("bpy")
PACKAGE = Path(__file__).resolve().parents[2] / "io_alamo"


def test_use_nodes_is_read_only_in_compat():
    uses = [f"{p.relative_to(PACKAGE)}:{k}" for p in PACKAGE.rglob("*.py")
            for k, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if re.search(r"\.use_nodes\b", line) and p.name != "compat.py"]
    assert uses == []


def test_the_material_image_lookup_gives_no_deprecation_warning(blender):
    from io_alamo.blender.alithia.exporter_texture import material_image
    from io_alamo.blender.compat import ensure_node_tree
    mat = bpy.data.materials.new("M")
    tree = ensure_node_tree(mat)
    node = tree.nodes.new("ShaderNodeTexImage")
    node.image = bpy.data.images.new("T", 4, 4)
    obj = bpy.data.objects.new("O", bpy.data.meshes.new("O"))
    obj.data.materials.append(mat)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        assert material_image(obj) == node.image
