"""A model file holds the rest pose, whatever frame Blender shows: while a model is built,
every armature of the scene is shown in its rest position (Armature > Pose Position: Rest),
so that meshes on bones and skinned meshes are read where they rest, not where the current
frame's action has moved them. Everything is put back afterwards."""

from contextlib import contextmanager


@contextmanager
def rest_pose(context):
    datas = {o.data for o in context.scene.objects if o.type == "ARMATURE"}
    saved = [(d, d.pose_position) for d in datas if d.pose_position != "REST"]
    for d, _ in saved:
        d.pose_position = "REST"
    if saved:
        context.view_layer.update()
    try:
        yield
    finally:
        for d, pos in saved:
            d.pose_position = pos
        if saved:
            context.view_layer.update()
