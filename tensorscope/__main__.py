"""`python -m tensorscope` runs the command line."""

import sys

from tensorscope.cli import main

sys.exit(main())
