#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder image
# (apt-get update has already run). It installs the kit in its own virtual environment.
set -euo pipefail
# Student code runs as nobody and must run this venv's Python: whatever umask the image build
# has (077 leaves the venv root's alone, and every grade a kit error), what is made here is readable.
umask 022
apt-get install -y --no-install-recommends python3 python3-venv python3-pip bubblewrap
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install --upgrade pip
/autograder/venv/bin/pip install /autograder/source/kit
