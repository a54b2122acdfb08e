"""``python -m cyclops``: the same as the ``cyclops`` command."""

from .cli import main

raise SystemExit(main())
