# CKAN 2.9's tests import the `mock` package; it is unittest.mock, whose patch the plugin guards.
from unittest.mock import *  # noqa: F401,F403
from unittest.mock import patch  # noqa: F401
