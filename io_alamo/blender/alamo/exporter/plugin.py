"""Export of a scene made with the older ALAMO plugin that was never converted: the plugin's
properties are read once, before the export pass (:func:`read_scene`), into what the
exporter writes (bone names, visibility and billboard modes, Material records, mesh flags,
proxies); the pass looks them up there and never reads the plugin's data itself. They go
into the file only: the scene is not changed (Convert Scene from the ALAMO Plugin does that,
for editing in the Alamo panels); the report says what was taken from the plugin's data and
what could not be.

Also the checks of the export scope that matter most for such scenes: meshes with Alamo data
the scope leaves out, and a model without meshes.
"""

from dataclasses import dataclass, field

import bpy

from ....formats.alamo import Material, ParamType, Proxy, ShaderParam, build_collision_tree
from ...attach import attached_objects, owner_armature
from ...names import from_blender
from ..legacy import plugin
from .common import shader_value

ON_THE_FLY = ("scene made with the ALAMO plugin: its data was converted for this export only "
              "(the scene is unchanged; Alamo sidebar > Convert Scene from the ALAMO Plugin "
              "makes it editable in the Alamo panels)")


@dataclass
class PluginScene:
    """The ALAMO plugin's data of one export, converted up front into what the exporter
    writes. Empty for a scene without the plugin's data."""
    armature: bool = False      # the armature is the plugin's (its bones hold the data)
    bones: list = field(default_factory=list)        # PluginBone records, the armature's
    materials: dict = field(default_factory=dict)    # material pointer: (Material, its
    #                                                  PluginMaterial) or None (not the plugin's)
    flags: dict = field(default_factory=dict)        # object name: (hidden, collision)

    def material(self, mat):
        """(Material record, PluginMaterial) of a material with only the plugin's shader
        choice, else None; a material the scope did not show up front is read once here."""
        if mat is None:
            return None
        key = mat.as_pointer()
        if key not in self.materials:
            self.materials[key] = _material(mat)
        return self.materials[key]


def read_scene(arm, objects):
    """Read the plugin's data of an export once: the armature's bones, the materials of the
    objects' slots, the objects' flags."""
    scene = PluginScene()
    if arm is not None and plugin.is_plugin_armature(arm):
        scene.armature, scene.bones = True, plugin.read_bones(arm)
    for obj in objects:
        if plugin.is_plugin_object(obj):
            scene.flags[obj.name] = plugin.object_flags(obj)
        for slot in getattr(obj, "material_slots", ()):
            if slot.material is not None and not slot.material.alamo.shader:
                scene.material(slot.material)
    return scene


def _material(mat):
    if not plugin.is_plugin_material(mat):
        return None
    m = plugin.read_material(mat)
    return Material(m.shader, [shader_param(p) for p in m.params]), m


def _mark(report, what, key):
    """Note that ``key`` (a bone, material, mesh or proxy name) of kind ``what`` was taken
    from the plugin's data, for the report's summary."""
    report.warn(ON_THE_FLY)
    report.plugin_taken.setdefault(what, set()).add(key)


def armature_members(objects, arm):
    """Objects the Armature scope takes besides the armature's children: those hung on it
    by Child Of or skinned by it, and, for an armature of the plugin, meshes with the
    plugin's data on no armature at all (they were on the ``Root`` bone it dropped)."""
    out = attached_objects(objects, arm)
    if plugin.is_plugin_armature(arm):
        out += [o for o in objects if o.type == "MESH" and o not in out
                and owner_armature(o) is None and plugin.has_plugin_data(o)]
    return out


def apply_skeleton(scene, built, report):
    """After the skeleton is built from Blender (``built``, a BuiltSkeleton): names,
    visibility and billboard modes from the plugin's bone properties, and the ``Root`` bone 0
    it dropped put back."""
    if not scene.armature:
        return
    bones = {b.blender_name: b for b in scene.bones}
    records = built.skeleton.bones
    renamed = 0
    for blender_name, k in built.bone_index.items():
        b = bones.get(blender_name)
        if b is None or k >= len(records):
            continue
        rec = records[k]
        renamed += rec.name != from_blender(b.file_name)
        rec.name, rec.visible, rec.billboard = from_blender(b.file_name), int(b.visible), \
            b.billboard
        _mark(report, "bones", blender_name)
    if renamed:
        report.warn(f"{renamed} bone names written without the '.001' suffixes Blender gave "
                      "duplicates")
    if plugin.root_missing(list(bones.values())):
        # the skeleton builder gives every new skeleton an identity Root bone 0
        if built.root_added:
            built.bone_index.setdefault(plugin.ROOT, 0)   # the plugin's "Root" vertex groups
        report.warn("the bone 'Root' the ALAMO plugin left out was written as bone 0")


def animation_problem(arm):
    """Why the animations of ``arm`` cannot be exported, or None: those of an unconverted
    plugin armature would get Blender's bone names and no ``Root``, not fitting the model."""
    if not plugin.is_plugin_armature(arm):
        return None
    return (f"armature {arm.name!r} was made with the ALAMO plugin: run Convert Scene from "
            "the ALAMO Plugin (Alamo sidebar) before exporting its animations")


def material_record(scene, mat, report, user):
    """The Material record of a material that still has only the plugin's shader choice,
    or None for any other material; ``user``: the objects its warnings are about."""
    found = scene.material(mat)
    if found is None:
        return None
    record, m = found
    for text in m.problems:
        report.warn(text, user)
    if m.defaulted:
        report.warn(f"material {mat.name!r}: {', '.join(m.defaulted)} not stored by the "
                      f"plugin; {m.shader}'s defaults were written", user)
    _mark(report, "materials", mat.name)
    return record


def shader_param(p):
    """A format ShaderParam from a PluginParam."""
    ptype = ParamType[p.type]
    return ShaderParam(p.name, ptype, shader_value(ptype, p.value))


def apply_mesh_flags(scene, obj, mesh, report):
    """Hidden and collision flags the plugin stored, on a mesh built from Blender data
    (collision trees added when the flag asks for them)."""
    if mesh is None or obj.name not in scene.flags:
        return mesh
    _mark(report, "mesh flags", obj.name)
    if mesh.name == from_blender(obj.name):
        name = from_blender(plugin.object_file_name(obj.name, bpy.data.objects))
        if name != mesh.name:
            mesh.name = name
            report.warn("mesh names written without the '.001' suffixes Blender gave "
                        "duplicates", [obj])
    hidden, collision = scene.flags[obj.name]
    mesh.hidden, mesh.collision = int(hidden), int(collision)
    if collision:
        for s in mesh.submeshes:
            if s.collision_tree is None:
                s.collision_tree = build_collision_tree(s.vertices["position"], s.indices)
    return mesh


def proxies(scene, arm, bone_index, report):
    """Proxy records for the plugin's bones with EnableProxy."""
    if not scene.armature:
        return []
    out = []
    for b in scene.bones:
        if b.proxy is None or b.blender_name not in bone_index:
            continue
        name = from_blender(b.proxy.name)
        report.check_name("proxy", name, [arm], mini=True)
        out.append(Proxy(name, bone_index[b.blender_name], int(b.proxy.hidden),
                         int(b.proxy.alt_decrease_stay_hidden)))
        _mark(report, "proxies", b.blender_name)
    return out


def _has_alamo_data(obj):
    if obj.alamo.role == "MESH" or plugin.is_plugin_object(obj):
        return True
    return any(s.material is not None and (s.material.alamo.shader
                                           or plugin.is_plugin_material(s.material))
               for s in obj.material_slots)


def finish_report(scene, arm, scope, exported, counts, report):
    """The last lines of the report: what was taken from the plugin's data, meshes with
    Alamo data that ``scope`` leaves out (those of other armatures aside), and a model
    with no meshes at all."""
    taken = report.plugin_taken
    if taken:
        report.warn("taken from the ALAMO plugin's data: " + ", ".join(
            f"{len(keys)} {what}" for what, keys in taken.items()))
    chosen = {o.name for o in exported}
    left = [o for o in scene.objects if o.type == "MESH" and o.name not in chosen
            and owner_armature(o) in (None, arm) and _has_alamo_data(o)]
    if left:
        report.warn(f"{len(left)} meshes with Alamo data are not in the export scope "
                    f"({scope.title()}): "
                    + ", ".join(o.name for o in left[:8]) + ("..." if len(left) > 8 else ""),
                    left)
    if counts.get("meshes", 0) == 0:
        report.warn("the model has no meshes")
