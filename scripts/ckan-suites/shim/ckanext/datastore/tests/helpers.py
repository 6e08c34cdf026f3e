"""CKAN's DataStore test helpers, over HTTP where that can be done."""
import harness as _h


def extract(d, keys):
    return dict((k, d[k]) for k in keys if k in d)


def set_url_type(resources, user):
    for resource in resources:
        _h.call_action("resource_patch", {"user": user["name"] if isinstance(user, dict) else user},
                       id=resource["id"] if isinstance(resource, dict) else resource.id, url_type="datastore")


def __getattr__(name):
    return _h.Inert("ckanext.datastore.tests.helpers." + name)
