import harness as _h


def __getattr__(name):
    import importlib

    try:
        return importlib.import_module("ckan.lib." + name)
    except ImportError:
        return _h.Inert("ckan.lib." + name)
