"""Materials for Blender's glTF exporter without the nodes it never reads.

The exporter looks for each socket it writes (base colour, metallic, roughness, normal, every
KHR_materials extension: a dozen per material) by listing every node of the material's
tree, so its time per material grows with nodes it then throws away. It reads only what
leads to the active Material Output (a Principled BSDF linked to it, and upstream of that)
and its own "glTF Material Output" node group, which sits unlinked. While
:func:`reachable_materials` is active, the exported objects' slots hold copies of their
materials, under the same names, whose trees keep just that: the nodes upstream of a
Material Output and the node groups (with what feeds them). The .glb is the same (tested
byte for byte); the imported preview materials lose about two thirds of their nodes
(specular, team colour mixing, the baked-over base colour chain; issue 44).
"""

from contextlib import contextmanager

import bpy

from .compat import uses_nodes

__all__ = ["kept_nodes", "nodes_upstream", "reachable_materials"]

_TEMPORARY = "\u2060io_alamo glTF original {}"


def kept_nodes(tree):
    """Names of the nodes of ``tree`` the glTF exporter may read: every Material Output and
    node group, and every node a link path leads from into one of them."""
    return nodes_upstream(tree, ("OUTPUT_MATERIAL", "GROUP"))


def nodes_upstream(tree, types):
    """Names of the nodes of ``tree`` of ``types`` and of every node from which links lead
    to one of them."""
    into = {}
    for link in tree.links:
        into.setdefault(link.to_node.name, []).append(link.from_node.name)
    todo = [n.name for n in tree.nodes if n.type in types]
    seen = set(todo)
    while todo:
        new = set(into.get(todo.pop(), ())) - seen
        seen |= new
        todo += new
    return seen


def _pruned_copy(mat, number):
    """A copy of ``mat`` named as it is (``mat`` renamed meanwhile) with only
    :func:`kept_nodes`, or None when there is nothing to leave out or it cannot be
    renamed (a linked material)."""
    if mat.library is not None or getattr(mat, "override_library", None) is not None \
            or not uses_nodes(mat):
        return None
    kept = kept_nodes(mat.node_tree)
    if len(kept) == len(mat.node_tree.nodes):
        return None
    name = mat.name
    copy = mat.copy()
    mat.name = _TEMPORARY.format(number)
    copy.name = name
    if copy.name != name:                 # the name is taken after all: leave it alone
        bpy.data.materials.remove(copy)
        mat.name = name
        return None
    nodes = copy.node_tree.nodes
    for node in [n for n in nodes if n.name not in kept]:
        nodes.remove(node)
    return copy


@contextmanager
def reachable_materials(objects):
    """While inside, the material slots of ``objects`` hold pruned copies of their
    materials under the same names (see the module's note); everything is put back
    afterwards."""
    copies, slots, made = {}, [], set()
    try:
        for obj in objects:
            for slot in obj.material_slots:
                mat = slot.material
                if mat is None:
                    continue
                key = mat.as_pointer()
                if key in made:           # a mesh shared with an object done before
                    continue
                if key not in copies:
                    copies[key] = (mat, _pruned_copy(mat, len(copies)))
                copy = copies[key][1]
                if copy is not None:
                    made.add(copy.as_pointer())
                    slots.append((slot, mat))
                    slot.material = copy
        yield
    finally:
        _put_back(slots, copies.values())


def _put_back(slots, copies):
    """Each slot its material again; the copies removed, their names given back."""
    for slot, mat in reversed(slots):
        slot.material = mat
    for mat, copy in copies:
        if copy is not None:
            name = copy.name
            bpy.data.materials.remove(copy)
            mat.name = name
