"""Choices the export offers, defined once for the operators, the preferences, the Check
panel and the batch converter (Blender enum items are plain tuples: no Blender needed)."""

# what an export (or a check) takes; ExportOptions.scope holds one of the identifiers
SCOPE_ITEMS = [
    ("ARMATURE", "Armature", "The armature the selection belongs to and everything attached "
     "to it"),
    ("SELECTION", "Selection", "Selected objects only"),
    ("VISIBLE", "Visible", "Objects visible in the viewport"),
    ("SCENE", "Scene", "Every object of the scene"),
]

# the .ala formats the export writes: 2 (Forces of Corruption), 1 (Empire at War)
ALA_FORMATS = (2, 1)
ALA_FORMAT_ITEMS = [("2", "#2 Forces of Corruption", "Forces of Corruption's format (the game "
                     "reads both)"),
                    ("1", "#1 Empire at War", "The original Empire at War format")]
# an imported action goes out in its own format (Empire at War reads only #1); the
# preference is for new actions
AS_IMPORTED_FORMAT_ITEMS = [("0", "As Imported", "The format the action was imported from; "
                             "new actions in the format the add-on preferences name")] \
    + ALA_FORMAT_ITEMS
