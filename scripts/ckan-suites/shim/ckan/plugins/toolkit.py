import harness as _h
from harness import ValidationError, NotAuthorized, NotFound, config, url_for  # noqa: F401
from ckan.logic import get_action  # noqa: F401

ObjectNotFound = NotFound


def asbool(v):
    return str(v).strip().lower() in ("true", "yes", "on", "y", "t", "1")


def aslist(v, sep=None):
    if isinstance(v, (list, tuple)):
        return list(v)
    return str(v).split(sep) if v else []


def check_ckan_version(min_version=None, max_version=None):
    import ckan

    v = tuple(int(x) for x in ckan.__version__.split(".")[:2])
    ok = True
    if min_version:
        ok = ok and v >= tuple(int(x) for x in min_version.split(".")[:2])
    if max_version:
        ok = ok and v <= tuple(int(x) for x in max_version.split(".")[:2])
    return ok


def __getattr__(name):
    return _h.Inert("ckan.plugins.toolkit." + name)
