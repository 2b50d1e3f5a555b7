"""``python -m io_alamo.batch``: the batch converter."""

import sys

from . import main

sys.exit(main())
