# Sourced by setup.sh and test.sh: make sure .venv exists (Python 3.11) with numpy, the test
# tools and the bpy wheel of Blender 4.5 LTS (about 1 GB; pip caches it), and the io-alamo
# command of this checkout in it (an editable install: edits to the checkout apply at once).
PY=${PYTHON:-$(command -v python3.11 || command -v python3)}
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c "import bpy, pytest" 2>/dev/null; then
  "$PY" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r requirements-dev.txt -r requirements-blender.txt
fi
# A .venv that is a link to another checkout's is that checkout's: its command is left alone.
if [ ! -L .venv ] && [ ! -x .venv/bin/io-alamo ]; then
  .venv/bin/python -m pip install -q --no-deps -e .
fi
