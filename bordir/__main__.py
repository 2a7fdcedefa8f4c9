"""``python -m bordir``: the ``bordir`` command line."""

import sys

from bordir.cli import main

sys.exit(main())
