"""Collision trees (``0x1200``): the record, a builder like the 3ds Max exporter's, a checker.

A tree is a binary tree of boxes. The root box is the header's float box (``box_min`` to
``box_max``) and the root node spans 0..255 of it. Every other node's byte box is relative
to its parent's box: 0..255 spans the parent box. An inner node (``count == 0``) has its two
children at ``link`` and ``link + 1``; a leaf holds ``count`` triangle ids starting at
``triangles[link]``.

What Petroglyph's exporter writes (checked on the game's own files):

* the header box is the bounding box of the sub-mesh's triangles scaled by 1.01 about its
  centre (0.5 % of its size added on each side of each axis), computed in float32;
* node byte boxes are the tight box of the node's triangles quantised outward (floor the
  minimum, ceil the maximum) against the parent's dequantised box;
* a node with at most two triangles is a leaf, so leaves hold one or two triangles;
* the split of an inner node is a cut of its triangles sorted by centroid along one axis,
  the lower part first; the cut matches, on most nodes, the one that minimises
  ``volume(left box) * n_left + volume(right box) * n_right`` over all three axes (the
  exporter's exact rule is not known: it sometimes picks a slightly different cut);
* layout is depth first with children allocated in pairs: a node's pair is allocated, then
  the first child's whole subtree, then the second child's;
* the triangle list holds the leaves' triangles in that same depth-first leaf order, each
  leaf's ids ascending, every triangle exactly once.

Some community-exported files instead round byte boxes to nearest (so a triangle can poke out
of its leaf box by up to half a byte step per level), lay nodes out breadth first and put one
triangle per leaf; the game reads them, so the checker accepts them by default.

Modules: :mod:`.tree` (the record, node dtypes, shared box arithmetic), :mod:`.cuts` (where
to cut a node), :mod:`.build` (the builder), :mod:`.check` (the checker). Nothing here imports
bpy: numpy and the standard library only.
"""

from .build import build_collision_tree
from .check import check_collision_tree
from .cuts import SPLIT_WINDOW, SPLIT_WINDOW_LARGE
from .tree import FILE_NODE_DTYPE, NODE_DTYPE, ROOT_BOX_SCALE, CollisionTree, root_box

__all__ = [
    "FILE_NODE_DTYPE", "NODE_DTYPE", "ROOT_BOX_SCALE", "SPLIT_WINDOW", "SPLIT_WINDOW_LARGE",
    "CollisionTree", "build_collision_tree", "check_collision_tree", "root_box",
]
