"""CKAN as its own tests see it, over HTTP (see harness/__init__.py)."""
import os

import harness  # noqa: F401  (installs the finder for every other CKAN module)

__version__ = os.environ.get("CKAN_VERSION", "2.11.5")
