import harness as _h
from harness import SearchError, SearchQueryError  # noqa: F401


def __getattr__(name):
    return _h.Inert("ckan.lib.search." + name)
