"""Allow ``python -m ms_perflint``."""

import sys

from ms_perflint.cli import main

sys.exit(main())
