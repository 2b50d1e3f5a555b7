"""Where an animation's frames sit on Blender's timeline, shared by import and export.

The file's frame k is Blender's frame k: import puts a file's first frame on frame 0, and
export writes a key range from frame 0 (keys from frame 1 get a frame 0 that holds their
first pose), so a round trip keeps frame numbers. A manual frame range is exported as it
is, its first frame becoming the file's frame 0.
"""

FIRST_FRAME = 0          # the Blender frame of a file's first frame
