"""`python3 -m podsim_plot FILE.h5 ...` (tools/plot runs this)."""
import sys

from .cli import main

sys.exit(main())
