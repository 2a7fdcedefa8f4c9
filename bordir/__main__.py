import sys

from bordir.cli import main

sys.exit(main())
