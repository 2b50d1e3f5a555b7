"""File > Import entries and drag and drop. Thin: options in, import function, report out."""

import bpy
from bpy.props import BoolProperty, EnumProperty

from ...formats.alamo.choices import AS_IMPORTED_FORMAT_ITEMS, SCOPE_ITEMS
from ...formats.registry import by_key
from ..armature import AnimationTargetError, find_armature
from ..file_operators import (drop_handler, export_base, export_reported, import_base, import_each,
                              leave_edit_modes, menu_entries, menu_registration)
from ..prefs import preference, user_texture_folders
from . import props
from ...formats.saving import replacing_other_kinds
from ..progress import reports_progress
from . import archive_import, follow
from .exporter import budget
from .exporter import textures as textures_out
from .exporter.ala import AlaExportOptions, armature_actions, export_ala
from .exporter.alo import AloExportOptions, export_alo, gather
from .importer.ala import AlaImportOptions, import_ala
from .importer.alo import import_alamo
from .particles.exporter import export_particles
from .particles.exporter import effect_alone
from .particles.exporter import system_object as particle_system_object

REPLACE_OTHER_KIND = BoolProperty(
    name="Replace Another Kind", default=False,
    description="Allow the file to replace an existing file of another kind (a model over a "
                "particle effect, a particle effect or model over an animation). Off: such an "
                "export is refused and nothing is written")

MODEL, ANIMATION = by_key("alo"), by_key("ala")


class IMPORT_SCENE_OT_alo(bpy.types.Operator, import_base(MODEL)):
    """Import Petroglyph Alamo models (.alo): skeleton, meshes, materials, lights, proxies
    and dazzles"""

    bl_label = "Import Alamo Model"

    @reports_progress
    def execute(self, context):
        options = self.declared_options(texture_folders=user_texture_folders(context))
        leave_edit_modes(context)
        return import_each(self, self.paths(), lambda path, _: import_alamo(context, path, options),
                           more_lines=lambda result: result.left_notes())


class IMPORT_ANIM_OT_ala(bpy.types.Operator, import_base(ANIMATION)):
    """Import Petroglyph Alamo animations (.ala, both formats) as actions of the selected
    armature"""

    bl_label = "Import Alamo Animation"

    set_frame_rate: BoolProperty(
        name="Set Scene Frame Rate",
        description="Set the scene's frame rate and range from the (first) animation",
        default=True)

    @reports_progress
    def execute(self, context):
        try:
            armature = find_armature(context, required=True)
        except AnimationTargetError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        leave_edit_modes(context, ("OBJECT", "POSE"))

        def import_one(path, done):
            # the first file imported sets the scene's frame rate and range
            options = AlaImportOptions(set_scene_frame_rate=self.set_frame_rate and not done,
                                       set_scene_range=not done)
            return import_ala(context, armature, path, options)
        return import_each(self, self.paths(), import_one)


class EXPORT_SCENE_OT_alo(bpy.types.Operator, export_base(MODEL)):
    """Export the armature and what hangs on it as a Petroglyph Alamo model (.alo)"""

    bl_label = "Export Alamo Model"

    scope: EnumProperty(
        name="Export", default="ARMATURE",
        items=SCOPE_ITEMS)
    apply_modifiers: BoolProperty(
        name="Apply Modifiers", default=True,
        description="Write meshes with their modifiers applied (Armature modifiers excepted)")
    own_bones: BoolProperty(
        name="Bones for Loose Objects", default=False,
        description="Give objects that hang on no bone a bone of their own, so they can be "
                    "animated; off bakes their transform into the root")
    animations: BoolProperty(
        name="Export Animations", default=False,
        description="Also write every action of the armature as <MODEL>_<ACTION>.ala beside "
                    "the model")
    write_textures: BoolProperty(
        name="Write Textures", default=False,
        description="Also write every texture the model names beside it (.dds or .tga) "
                    "from the image its material shows, e.g. the decoded textures of an "
                    "imported Arma model")
    texture_format: EnumProperty(
        name="Texture Format", default=textures_out.TEXTURE_FORMAT_ITEMS[0][0],
        items=textures_out.TEXTURE_FORMAT_ITEMS,
        description="How Write Textures writes .dds files")
    replace_other_kind: REPLACE_OTHER_KIND

    @reports_progress
    def execute(self, context):
        leave_edit_modes(context)
        options = AloExportOptions(scope=self.scope, apply_modifiers=self.apply_modifiers,
                                   own_bones=self.own_bones, animations=self.animations,
                                   ala_format=int(self.ala_format) or None,
                                   new_ala_format=int(preference(context, "new_ala_format")))
        with replacing_other_kinds(self.replace_other_kind):
            return export_reported(self, context, lambda: self._export(context, options))

    def _export(self, context, options):
        # a particle effect selected, or the only thing to export: the effect is written
        system = particle_system_object(context) or effect_alone(context, *gather(context,
                                                                                  options))
        if system is not None:
            return export_particles(context, self.filepath, system)
        return textures_out.after_export(
            budget.export_within(context, self.max_triangles,
                                 lambda: export_alo(context, self.filepath, options)),
            self.filepath, self.write_textures, self.texture_format, int(self.texture_size))


def _action_items(self, context):
    """The armature's actions, for the Action menu (kept alive: Blender holds pointers)."""
    arm = find_armature(context)
    actions = armature_actions(arm) if arm is not None else []
    _action_items.cache = [(SELECTED, "Selected", "The animation selected in the Alamo "
                            "Animations list, else the active one")] + \
        [(a.name, a.name, f"Export {a.name}") for a in actions]
    return _action_items.cache


SELECTED = "\x01selected"        # no action's name: the list's selection


def chosen_action(context, arm, name=""):
    """The action to export: ``name``, else the one selected in the Alamo Animations list,
    else the active one, else the armature's first (None: it has none)."""
    actions = armature_actions(arm)
    by_name = {a.name: a for a in actions}
    if name and name != SELECTED:
        return by_name.get(name)
    wm = context.window_manager
    index = getattr(wm, "alamo_action_index", -1) if wm is not None else -1
    if 0 <= index < len(bpy.data.actions) and bpy.data.actions[index].name in by_name:
        return bpy.data.actions[index]
    active = arm.animation_data.action if arm.animation_data else None
    if active is not None and active.name in by_name:
        return active
    return actions[0] if actions else None


class EXPORT_ANIM_OT_ala(bpy.types.Operator, export_base(ANIMATION)):
    """Export an animation of the selected armature as a Petroglyph Alamo animation (.ala):
    the one selected in the Alamo Animations list, else the active one"""

    bl_label = "Export Alamo Animation"

    action: EnumProperty(name="Action", items=_action_items, options={"SKIP_SAVE"},
                         description="Which of the armature's animations to export")
    format: EnumProperty(name="Format", default="0", items=AS_IMPORTED_FORMAT_ITEMS)
    frame_range: EnumProperty(
        name="Frame Range", default="ACTION",
        items=[("ACTION", "Action", "The action's frame range"),
               ("SCENE", "Scene", "The scene's frame range")])
    frame_rate: EnumProperty(
        name="Frame Rate", default="ACTION",
        items=[("ACTION", "Action", "The rate the animation was imported with (a new one: "
                "the rate of the unit's imported animations, else the scene's)"),
               ("SCENE", "Scene", "The scene's frame rate")])
    replace_other_kind: REPLACE_OTHER_KIND

    @classmethod
    def poll(cls, context):
        try:
            arm = find_armature(context, required=True)
        except AnimationTargetError as e:
            cls.poll_message_set(str(e))
            return False
        if not armature_actions(arm):
            cls.poll_message_set(f"armature {arm.name!r} has no animations: import one (.ala) "
                                 "or key its bones")
            return False
        return True

    def invoke(self, context, event):
        arm = find_armature(context, required=True)
        action = chosen_action(context, arm)
        if action is not None:
            self.action = action.name
            if not self.filepath:
                self.filepath = action.name + self.filename_ext
        return super().invoke(context, event)

    @reports_progress
    def execute(self, context):
        try:
            arm = find_armature(context, required=True)
        except AnimationTargetError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        action = chosen_action(context, arm, self.action)
        if action is None:
            named = f"{self.action!r} " if self.action and self.action != SELECTED else ""
            self.report({"ERROR"}, f"armature {arm.name!r} has no animation {named}to "
                        "export: import one (.ala) or key its bones")
            return {"CANCELLED"}
        leave_edit_modes(context, ("OBJECT", "POSE"))
        options = AlaExportOptions(format=int(self.format) or None,
                                   new_format=int(preference(context, "new_ala_format")),
                                   frame_range=self.frame_range,
                                   frame_rate=self.frame_rate)
        with replacing_other_kinds(self.replace_other_kind):
            return export_reported(self, context, lambda: export_ala(context, arm, action,
                                                                     self.filepath, options))


ALAMO_FH_alo = drop_handler("ALAMO_FH_alo", "Alamo Model", MODEL)
menu_import = menu_entries((IMPORT_SCENE_OT_alo, MODEL.import_label),
                           (archive_import.IMPORT_SCENE_OT_alamo_from_archives,
                            archive_import.MENU_LABEL),
                           (IMPORT_ANIM_OT_ala, ANIMATION.import_label))
menu_export = menu_entries((EXPORT_SCENE_OT_alo, MODEL.export_label),
                           (EXPORT_ANIM_OT_ala, ANIMATION.export_label))


CLASSES = (IMPORT_SCENE_OT_alo, IMPORT_ANIM_OT_ala, EXPORT_SCENE_OT_alo, EXPORT_ANIM_OT_ala,
           ALAMO_FH_alo) + archive_import.CLASSES

_register_menus, _unregister_menus = menu_registration(CLASSES, menu_import, menu_export)


def register():
    """Alamo's data model (``.alamo`` on bones, materials, objects) first: every engine's
    import makes Alamo units (through the hub), and the sidebar shows it."""
    props.register()
    _register_menus()
    follow.register()          # proxies, dazzles and lights move with their bone


def unregister():
    follow.unregister()
    _unregister_menus()
    props.unregister()
