"""pytest plugin: CKAN's fixtures, over HTTP (loaded with -p harness.plugin)."""
import io
import random
import string
import unittest.mock
import uuid

import pytest

import harness as h
import ckan.tests.factories as factories

CLEANING = {"clean_db", "clean_datastore", "reset_db", "clean_index", "reset_index", "create_with_upload"}


def _marked_config(item):
    out = {}
    # outer marks first, so the test's own marks win
    for mark in reversed(list(item.iter_markers("ckan_config"))):
        out[mark.args[0]] = mark.args[1]
    return out


@pytest.fixture(autouse=True)
def _harness_reset(request):
    h.config.clear()
    h.config.update(h.PROFILE)
    h.config.overrides = {}
    for k, v in _marked_config(request.node).items():
        dict.__setitem__(h.config, k, v)
        h.config.overrides[k] = v
    clean = bool(CLEANING & set(request.fixturenames))
    h.reset(clean)
    h.running["now"] = True
    yield
    h.running["now"] = False


# mocking a CKAN module cannot reach the server
_enter = unittest.mock._patch.__enter__


def _guarded_enter(self):
    getter = getattr(self, "getter", None)
    target = getattr(getter, "args", [""])[0] if getter is not None else ""
    if isinstance(target, str) and target.split(".")[0] in ("ckan", "ckanext"):
        h.not_applicable("mocks " + target + "." + str(self.attribute))
    if isinstance(getattr(self, "target", None), h.Inert) or (getter is not None and isinstance(_safe_get(getter), (h.Inert, h.InertModule))):
        h.not_applicable("mocks a CKAN internal")
    return _enter(self)


def _safe_get(getter):
    try:
        return getter()
    except Exception:
        return None


unittest.mock._patch.__enter__ = _guarded_enter


@pytest.fixture
def ckan_config():
    return h.config


@pytest.fixture
def app():
    return h.App()


@pytest.fixture
def make_app():
    return h.App


for _name in ("clean_db", "clean_datastore", "reset_db", "clean_index", "reset_index", "non_clean_db",
              "with_plugins", "reset_db_once", "clean_queues", "reset_queues", "with_request_context",
              "test_request_context_", "reset_redis", "clean_redis"):
    def _noop():
        return None

    globals()[_name] = pytest.fixture(name=_name)(_noop)


@pytest.fixture
def test_request_context():
    import contextlib

    return contextlib.nullcontext


@pytest.fixture
def with_test_worker():
    h.not_applicable("runs CKAN's job worker in process")


@pytest.fixture
def mail_server():
    h.not_applicable("reads the mails CKAN sent through a patched SMTP")


@pytest.fixture
def migrate_db_for():
    h.not_applicable("runs CKAN's migrations")


@pytest.fixture
def cli():
    h.not_applicable("runs CKAN's CLI")


class _Upload:
    def __init__(self, data, filename):
        self.stream = io.BytesIO(data)
        self.filename = filename

    def read(self):
        return self.stream.read()


@pytest.fixture
def create_with_upload():
    def factory(data, filename, context=None, **kwargs):
        action = kwargs.pop("action", "resource_create")
        field = kwargs.pop("upload_field_name", "upload")
        if isinstance(data, str):
            data = data.encode("utf-8")
        params = {field: _Upload(data, filename)}
        params.update(kwargs)
        return h.call_action(action, context or {}, **params)

    return factory


# pytest-factoryboy's fixtures, as CKAN registers them
def _register(factory, name):
    def value():
        return factory()

    def klass():
        return factory

    globals()[name] = pytest.fixture(name=name)(value)
    globals()[name + "_factory"] = pytest.fixture(name=name + "_factory")(klass)


_register(factories.User, "user")
_register(factories.Sysadmin, "sysadmin")
_register(factories.Organization, "organization")
_register(factories.Group, "group")
_register(factories.Dataset, "package")
_register(factories.Resource, "resource")
_register(factories.ResourceView, "resource_view")
_register(factories.Vocabulary, "vocabulary")
_register(factories.Tag, "tag")
_register(factories.APIToken, "api_token")
_register(factories.SystemInfo, "system_info")


class _Activity(factories.Factory):
    action = "activity_create"


_register(_Activity, "activity")


class _Faker:
    def user_name(self):
        return factories._user_name()

    def email(self):
        return factories._email()

    def uuid4(self):
        return str(uuid.uuid4())

    def sentence(self, nb_words=6):
        return factories._sentence(nb_words)

    def text(self, max_nb_chars=200):
        return factories._text(max_nb_chars)

    def name(self):
        return factories._person()

    def word(self):
        return random.choice(factories._WORDS)

    def password(self, length=10, **k):
        return factories._password()

    def url(self):
        return factories._url()

    def slug(self):
        return factories._letters(8)

    def json(self, **k):
        import json

        return json.dumps({factories._letters(5): factories._letters(8) for _ in range(3)})

    def image(self, size=(16, 16), image_format="png", **k):
        # a tiny image whose first bytes say its format, which is what the tests rely on
        import base64

        if image_format in ("jpeg", "jpg"):
            return b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + b"\x00" * 64 + b"\xff\xd9"
        if image_format == "gif":
            return b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"
        return base64.b64decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
        )

    def __getattr__(self, attr):
        h.not_applicable("faker." + attr + " not in the harness")


@pytest.fixture
def faker():
    return _Faker()


def pytest_collection_modifyitems(config, items):
    pass


# ---------------------------------------------------------------------------------------------
# The report: every test's outcome, and for the others why
_results = {}


def pytest_runtest_logreport(report):
    nodeid = report.nodeid
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed") or (
        report.when == "teardown" and report.outcome == "failed"
    ):
        if nodeid in _results and _results[nodeid]["outcome"] == "failed":
            return
        entry = {"outcome": report.outcome, "why": ""}
        if report.skipped:
            longrepr = report.longrepr
            entry["why"] = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        elif report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            entry["why"] = (crash.message if crash else str(report.longrepr))[:600]
            entry["when"] = report.when
        _results[nodeid] = entry


def pytest_sessionfinish(session, exitstatus):
    import json
    import os

    out = os.environ.get("HARNESS_REPORT")
    if out:
        with open(out, "w") as f:
            json.dump({"results": _results, "stats": h.stats}, f, indent=1)
