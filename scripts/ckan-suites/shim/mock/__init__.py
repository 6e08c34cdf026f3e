"""CKAN 2.9's tests import the `mock` package: the standard library's unittest.mock."""
from unittest.mock import *  # noqa: F401,F403
from unittest.mock import patch, MagicMock, Mock, call, ANY  # noqa: F401
