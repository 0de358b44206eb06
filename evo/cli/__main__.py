"""``python -m evo.cli``."""

import sys

from evo.cli import main

sys.exit(main())
