"""Arma binarized models (ODOL .p3d) in Blender: import."""
