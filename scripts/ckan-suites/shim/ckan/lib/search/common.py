from harness import SearchError, SearchQueryError  # noqa: F401
