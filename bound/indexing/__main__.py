"""``python -m bound.indexing FILE.hlo``: see :mod:`bound.indexing.hlo_maps`."""

import sys

from bound.indexing.hlo_maps import main

sys.exit(main())
