"""The HTTP side of CKAN's test API: what CKAN's tests call in process, sent to the catalogue.

`ckan.tests.helpers.call_action`, the factories and the fixtures of this shim all end here. A test
that reaches for CKAN's internals (the SQLAlchemy model, a plugin class, a mock of a CKAN module)
is skipped as "not applicable" at the moment it does so: `pytest.skip` with the reason
"N/A: ...", which `run.sh` counts apart from failures.
"""
import datetime
import importlib.abc
import importlib.machinery
import io
import json
import os
import sys
import types

import pytest
import requests

BASE = os.environ.get("HARNESS_URL", "http://127.0.0.1:5055")
API_COMPAT = os.environ.get("API_COMPAT", "2.9")
session = requests.Session()


class _NoCookies(__import__("http.cookiejar").cookiejar.DefaultCookiePolicy):
    """Each call carries only the credential the test names: answers' cookies are not kept."""

    def set_ok(self, cookie, request):
        return False


session.cookies.set_policy(_NoCookies())

# True while a test body runs: a CKAN internal used then skips the test; at import time it is inert.
running = {"now": False}
# what the run changed: counts shown in the summary
stats = {"auth_skipped": 0}


def not_applicable(why):
    pytest.skip("N/A: " + why)


# ---------------------------------------------------------------------------------------------
# Stand-ins for CKAN's internals


class Inert:
    """A CKAN internal: inert while modules import, skips the test when a test uses it."""

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def _use(self, what=""):
        if running["now"]:
            not_applicable("uses CKAN internals: " + self._name + what)
        return Inert(self._name + what)

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return self._use("." + attr)

    def __call__(self, *a, **k):
        r = self._use("()")
        # a decorator applied at import time gives back what it decorates
        if len(a) == 1 and callable(a[0]) and not k:
            return a[0]
        return r

    def __mro_entries__(self, bases):
        return (object,)

    def __getitem__(self, k):
        return self._use("[]")

    def __iter__(self):
        self._use(" iterated")
        return iter(())

    def __eq__(self, other):
        return self._use(" compared") is self

    def __hash__(self):
        return id(self)

    def __bool__(self):
        self._use(" as bool")
        return False

    def __enter__(self):
        return self._use(" entered")

    def __exit__(self, *a):
        return False


class InertModule(types.ModuleType):
    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return Inert(self.__name__ + "." + attr)


SHIMMED_ROOTS = ("ckan", "ckanext", "sqlalchemy", "freezegun", "bs4", "rq", "faker", "factory", "pytest_factoryboy", "flask_login", "responses_")


class InertFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Any CKAN module this shim does not provide imports as an inert module."""

    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in SHIMMED_ROOTS:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        return InertModule(spec.name)

    def exec_module(self, module):
        pass


if not any(isinstance(f, InertFinder) for f in sys.meta_path):
    sys.meta_path.append(InertFinder())


# ---------------------------------------------------------------------------------------------
# CKAN's exceptions, as the API's error envelope names them


class ActionError(Exception):
    def __init__(self, message=""):
        self.message = message
        super().__init__(message)


class NotFound(ActionError):
    pass


class NotAuthorized(ActionError):
    pass


class ValidationError(ActionError):
    def __init__(self, error_dict=None, error_summary=None, extra_msg=None):
        if not isinstance(error_dict, dict):
            error_dict = {"message": error_dict}
        self.error_dict = error_dict
        self._error_summary = error_summary
        super().__init__(str(error_dict))

    @property
    def error_summary(self):
        return self._error_summary or {k: (v[0] if isinstance(v, list) and v else v) for k, v in self.error_dict.items()}

    def __str__(self):
        return str(self.error_dict)


class SearchError(Exception):
    pass


class SearchQueryError(SearchError):
    pass


class BadRequest(ActionError):
    pass


class HarnessError(AssertionError):
    pass


# ---------------------------------------------------------------------------------------------
# The catalogue's settings, as CKAN's `config` object


class Config(dict):
    """CKAN's config: reads the effective values; writing one restarts the app with it."""

    def __init__(self, profile):
        super().__init__(profile)
        self.overrides = {}

    def __setitem__(self, k, v):
        super().__setitem__(k, v)
        self.overrides[k] = v
        if running["now"]:
            reset(False)

    def __delitem__(self, k):
        super().__delitem__(k)
        self.overrides.pop(k, None)

    def get(self, k, default=None):
        return super().get(k, default)


PROFILE = {
    "ckan.site_url": "http://test.ckan.net",
    "ckan.site_id": "test.ckan.net",
    "ckan.plugins": "",
    "ckan.auth.create_user_via_api": False,
    "ckan.auth.create_unowned_dataset": True,
    "ckan.storage_path": "/tmp",
    "ckan.datastore.sqlsearch.enabled": True,
    "ckan.auth.public_activity_stream_detail": False,
    "ckan.activity_list_limit": 31,
    "ckan.activity_list_limit_max": 100,
    "ckan.datasets_per_page": 20,
}
config = Config(PROFILE)

SUPPORTED_PLUGINS = {
    "activity", "datastore", "datapusher", "xloader", "image_view", "text_view", "webpage_view",
    "datatables_view", "recline_view", "video_view", "audio_view", "geojson_view", "wms_view",
    "wmts_view", "scheming_datasets", "scheming_groups", "scheming_organizations", "fluent",
    "harvest", "ckan_harvester", "dcat", "dcat_rdf_harvester", "dcat_json_harvester", "spatial_metadata",
    "spatial_query", "resource_proxy", "stats", "tracking", "expire_api_token", "",
}


def _as_setting(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return " ".join(str(x) for x in v)
    return str(v)


state = {"site": None, "credential": None, "creds": {}}


def reset(clean):
    plugins = str(config.get("ckan.plugins") or "").split()
    for p in plugins:
        if p not in SUPPORTED_PLUGINS:
            not_applicable("needs CKAN plugin " + p)
    # ckan.plugins reaches the catalogue as service.plugins: what status_show reports
    settings = {k: _as_setting(v) for k, v in config.overrides.items()}
    # CKAN's tests call user_create in process, where create_user_via_web decides; over HTTP the
    # API's option does
    if "ckan.auth.create_user_via_web" in settings and "ckan.auth.create_user_via_api" not in settings:
        settings["ckan.auth.create_user_via_api"] = settings["ckan.auth.create_user_via_web"]
    r = session.post(BASE + "/__harness/reset", json={"clean": clean, "config": settings})
    if r.status_code != 200:
        raise HarnessError("reset failed: " + r.text)
    body = r.json()
    if clean or body["site_user"] != state["site"]:
        state["creds"] = {}
    state["site"] = body["site_user"]
    state["credential"] = body["credential"]
    state["creds"][body["site_user"]] = body["credential"]


def credential(user):
    if user in state["creds"]:
        return state["creds"][user]
    r = session.post(BASE + "/__harness/credential", json={"user": user})
    if r.status_code == 404:
        # CKAN treats a context user it cannot find as nobody
        state["creds"][user] = None
        return None
    if r.status_code != 200:
        raise HarnessError("no credential for %r: %s" % (user, r.text))
    c = r.json()["credential"]
    state["creds"][user] = c
    return c


def _json_default(o):
    if isinstance(o, (datetime.datetime, datetime.date)):
        return o.isoformat()
    if isinstance(o, (set, tuple)):
        return list(o)
    try:
        import decimal

        if isinstance(o, decimal.Decimal):
            return float(o)
    except ImportError:
        pass
    if isinstance(o, Inert):
        o._use(" sent over HTTP")
    return str(o)


def _is_file(v):
    return hasattr(v, "read") or (hasattr(v, "stream") and hasattr(v, "filename"))


def post_action(name, data, cred):
    headers = dict(cred) if cred else {}
    files = {k: v for k, v in data.items() if _is_file(v)}
    if files:
        form = []
        for k, v in data.items():
            if k in files:
                continue
            if isinstance(v, (dict, list)):
                form.append((k, json.dumps(v, default=_json_default)))
            elif v is None:
                continue
            else:
                form.append((k, _as_setting(v) if isinstance(v, bool) else str(v)))
        up = {}
        for k, v in files.items():
            fname = getattr(v, "filename", None) or getattr(v, "name", None) or k
            stream = getattr(v, "stream", v)
            if hasattr(stream, "seek"):
                stream.seek(0)
            up[k] = (os.path.basename(str(fname)), stream.read())
        return session.post(BASE + "/api/3/action/" + name, data=form, files=up, headers=headers)
    headers["Content-Type"] = "application/json"
    return session.post(BASE + "/api/3/action/" + name, data=json.dumps(data, default=_json_default), headers=headers)


def raise_for(envelope, status):
    err = envelope.get("error") or {}
    kind = err.get("__type") if isinstance(err, dict) else None
    rest = {k: v for k, v in err.items() if k != "__type"} if isinstance(err, dict) else {"message": err}
    message = rest.get("message", "")
    if kind == "Validation Error":
        raise ValidationError(rest)
    if kind == "Not Found Error":
        raise NotFound(message)
    if kind == "Authorization Error":
        raise NotAuthorized(message)
    if kind == "Integrity Error":
        # what CKAN's API answers for navl's DataError (data that cannot be flattened)
        from ckan.lib.navl.dictization_functions import DataError

        raise DataError(message)
    if kind in ("Search Query Error",):
        raise SearchQueryError(message or str(rest))
    if kind in ("Search Error",):
        raise SearchError(message or str(rest))
    raise HarnessError("%s: %s" % (status, json.dumps(envelope)[:2000]))


def _envelope(r, name):
    try:
        return r.json()
    except ValueError:
        raise HarnessError("%s %s: not JSON: %s" % (name, r.status_code, r.text[:500]))


def _refused(envelope):
    err = envelope.get("error")
    return isinstance(err, dict) and err.get("__type") == "Authorization Error"


def action(name, data, user, ignore_auth):
    """The action over the API as the caller the test names; CKAN's helper skips authorization
    (ignore_auth, its default), so a refusal is redone through the harness's auth-skipping route
    as the same user (the site user for an anonymous caller), counted in the report."""
    anonymous_user = user in (None, "", "127.0.0.1")
    cred = None if anonymous_user else credential(user)
    # inputs CKAN keeps only from sysadmins or when authorization is skipped: a dataset's `state`
    # on create (ignore_not_package_admin), `include_hidden_activity` (ignore_not_sysadmin). A
    # test giving them as another caller relies on the skipping, so the call goes that way.
    privileged_input = user != state["site"] and (
        (name.endswith("_create") and "state" in data and not anonymous_user)
        or bool(data.get("include_hidden_activity"))
    )
    if ignore_auth and privileged_input:
        r, envelope = None, {"error": {"__type": "Authorization Error"}}
    else:
        r = post_action(name, data, cred)
        envelope = _envelope(r, name)
    if ignore_auth and not envelope.get("success") and _refused(envelope):
        stats["auth_skipped"] += 1
        if any(_is_file(v) for v in data.values()):
            r = post_action(name, data, state["credential"])
        else:
            body = json.dumps({"user": None if anonymous_user else user, "params": data}, default=_json_default)
            r = session.post(BASE + "/__harness/call/" + name, data=body, headers={"Content-Type": "application/json"})
        envelope = _envelope(r, name)
    if envelope.get("success"):
        result = envelope.get("result")
        if name == "user_generate_apikey":
            # the key the harness called with may be the one just replaced
            state["creds"] = {state["site"]: state["credential"]}
        if name == "datastore_search_sql":
            _numeric_as_decimal(result)
        return result
    err = envelope.get("error") or {}
    if r is not None and r.status_code == 400 and isinstance(err, dict) and "Action name not known" in str(err.get("message", "")):
        raise KeyError("Action '%s' not found" % name)
    raise_for(envelope, r.status_code)


def _numeric_as_decimal(result):
    """CKAN's in-process datastore_search_sql gives a numeric column's values as Decimal, which its
    JSON encoder writes as numbers: a number of such a column read back is the Decimal it was (a
    string, as CKAN 2.9 sends one, stays a string)."""
    import decimal

    if not isinstance(result, dict):
        return
    numeric = [f.get("id") for f in result.get("fields") or [] if f.get("type") == "numeric"]
    for rec in result.get("records") or []:
        for k in numeric:
            v = rec.get(k)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                rec[k] = decimal.Decimal(repr(v)) if isinstance(v, float) else decimal.Decimal(v)


CONTEXT_KEYS = {"user", "ignore_auth", "model", "session"}


def call_action(action_name, context=None, **kwargs):
    context = context if context is not None else {}
    extra = set(context) - CONTEXT_KEYS
    if extra:
        not_applicable("context keys do not cross HTTP: " + ", ".join(sorted(extra)))
    user = context.get("user", "127.0.0.1")
    if isinstance(user, dict):
        user = user.get("name")
    return action(action_name, kwargs, user, context.get("ignore_auth", True))


# ---------------------------------------------------------------------------------------------
# The `app` fixture: a test client over HTTP


class Response:
    def __init__(self, r):
        self._r = r
        self.status_code = r.status_code
        self.headers = r.headers
        self.data = r.content
        self.body = r.text
        self.text = r.text
        self.location = r.headers.get("location")
        self.content_type = r.headers.get("content-type", "")
        self.mimetype = self.content_type.split(";")[0]

    @property
    def json(self):
        return self._r.json()

    def get_data(self, as_text=False):
        return self.body if as_text else self.data


class App:
    def _open(self, method, url, params=None, data=None, json=None, headers=None, extra_environ=None,
              environ_overrides=None, status=None, query_string=None, content_type=None,
              follow_redirects=False, **rest):
        headers = dict(headers or {})
        environ = dict(extra_environ or {})
        environ.update(environ_overrides or {})
        user = environ.get("REMOTE_USER")
        if user:
            headers.update(credential(user))
        if content_type:
            headers["Content-Type"] = content_type
        q = query_string or (params if method == "GET" else None)
        body = data
        if method != "GET" and params is not None and data is None and json is None:
            body = params
        files = None
        if isinstance(body, dict) and any(_is_file(v) for v in body.values()):
            files = {k: (getattr(v, "filename", k), getattr(v, "stream", v).read()) for k, v in body.items() if _is_file(v)}
            body = {k: v for k, v in body.items() if not _is_file(v)}
        if not url.startswith("http"):
            url = BASE + url
        r = session.request(method, url, params=q, data=body, json=json, headers=headers, files=files,
                            allow_redirects=follow_redirects)
        if status is not None and r.status_code != status:
            raise AssertionError("expected status %s, got %s: %s" % (status, r.status_code, r.text[:500]))
        return Response(r)

    def get(self, url, **k):
        return self._open("GET", url, **k)

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        not_applicable("test app's " + attr)

    def post(self, url, **k):
        return self._open("POST", url, **k)

    def put(self, url, **k):
        return self._open("PUT", url, **k)

    def delete(self, url, **k):
        return self._open("DELETE", url, **k)

    def head(self, url, **k):
        return self._open("HEAD", url, **k)


# routes CKAN's tests name, as url_for knows them
def url_for(*args, **kw):
    endpoint = args[0] if args else kw.pop("endpoint", None)
    if endpoint is None:
        not_applicable("url_for by controller and action (Pylons routes)")
    if endpoint.startswith("/"):
        return endpoint
    qualified = kw.pop("qualified", False)
    id_ = kw.pop("id", None)
    routes = {
        "api.action": lambda: "/api/3/action/" + kw.pop("logic_function"),
        "dataset.read": lambda: "/dataset/" + id_,
        "dataset.search": lambda: "/dataset/",
        "dataset.activity": lambda: "/dataset/activity/" + id_,
        "activity.package_activity": lambda: "/dataset/activity/" + id_,
        "activity.organization_activity": lambda: "/organization/activity/" + id_,
        "activity.group_activity": lambda: "/group/activity/" + id_,
        "activity.user_activity": lambda: "/user/activity/" + id_,
        "datastore.dump": lambda: "/datastore/dump/" + kw.pop("resource_id"),
        "datastore.dictionary": lambda: "/dataset/%s/dictionary/%s" % (id_, kw.pop("resource_id")),
        "resource.read": lambda: "/dataset/%s/resource/%s" % (id_, kw.pop("resource_id")),
        "organization.read": lambda: "/organization/" + id_,
        "group.read": lambda: "/group/" + id_,
        "user.read": lambda: "/user/" + id_,
    }
    if endpoint not in routes:
        not_applicable("url_for(%r) not mapped by the harness" % endpoint)
    path = routes[endpoint]()
    if kw:
        from urllib.parse import urlencode

        path += "?" + urlencode(kw)
    return ("http://test.ckan.net" if qualified else "") + path
