"""``python -m bound.indexing FILE.hlo``: see :mod:`bound.indexing.hlo_maps`."""

import os
import sys

from bound.indexing.hlo_maps import main

try:
    sys.exit(main())
except BrokenPipeError:  # the reader stopped early (``| head``): not an error of ours
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(0)
