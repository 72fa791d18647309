"""Allow ``python -m ms_perflint``."""

import sys

from ms_perflint.cli import console_main

sys.exit(console_main())
