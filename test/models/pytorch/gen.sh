#!/bin/sh
# pytorch: three small random-weight PyTorch models (cnn, mlp, residual) quantized to int8 and
# lowered to TOSA 1.0 flatbuffers (.tosa) by ExecuTorch's Arm backend, the route PyTorch users
# take; see README.md. Creates the venv .venv-torch at the repository root if it is not there
# (PyPI's torch is the CUDA build: a 6.2 GB venv), installs the pinned packages into it (a no-op
# when they are), then runs gen.py, which rewrites test/models/pytorch/{cnn,mlp,residual}/ byte
# for byte the same each run (fixed seeds). About 3 minutes the first time (mostly the install),
# 25 s after that, on 2 cores. Run once by hand, from anywhere, when the models change; the tests
# never run it, they read the committed files:
#     sh test/models/pytorch/gen.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
venv=$root/.venv-torch
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
nice "$venv/bin/pip" install --quiet --disable-pip-version-check \
  torch==2.14.1 executorch==1.5.1 tosa-tools==2026.5.0 numpy==2.1.3
nice "$venv/bin/python" "$here/gen.py" "$here"
