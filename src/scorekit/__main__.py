import sys

from scorekit.cli import main

sys.exit(main())
