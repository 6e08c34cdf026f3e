"""CKAN's test factories: the same defaults, made through the catalogue's actions over HTTP."""
import random
import string
import types
import uuid

import harness as _h
import ckan

# CKAN 2.9's factories gave constant titles and texts (tests sort by them)
V29 = ckan.__version__.startswith("2.9")

_seen = set()


def _unique(make):
    while True:
        v = make()
        if v not in _seen:
            _seen.add(v)
            return v


def _letters(n):
    return "".join(random.choice(string.ascii_lowercase) for _ in range(n))


def _digits(n):
    return "".join(random.choice(string.digits) for _ in range(n))


def _name(kind):
    return lambda: _unique(lambda: "%s-%s-%s-%s" % (kind, _letters(4), _digits(4), _letters(4)))


_WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua".split()


def _text(n=60):
    out = ""
    while len(out) < n - 12:
        out += random.choice(_WORDS) + " "
    return out.strip().capitalize() + "."


def _sentence(words=5):
    return " ".join(random.choice(_WORDS) for _ in range(words)).capitalize() + "."


def _person():
    return random.choice(["Ann", "Bob", "Cleo", "Dev", "Eli"]) + " " + random.choice(["Smith", "Jones", "Brown", "Lee"])


def _password():
    return "".join(random.choice(string.ascii_letters) for _ in range(6)) + _digits(2) + "!Aa"


def _user_name():
    return _unique(lambda: _letters(6) + _digits(3))


def _email():
    return _unique(lambda: "%s%s@ckan.example.com" % (_letters(6), _digits(3)))


def _company():
    return random.choice(["Acme", "Globex", "Initech", "Umbrella"]) + " " + random.choice(["Ltd", "Inc", "Group", "and Sons"])


def _image_url():
    return "https://picsum.photos/%d/%d" % (random.randint(100, 900), random.randint(100, 900))


def _url():
    return "https://www.%s.com/" % _letters(8)


def _file_extension():
    return random.choice(["csv", "json", "xml", "txt", "pdf", "mp3", "html"])


def _site_user_name(kwargs):
    if "user" in kwargs:
        user = kwargs.pop("user")
    else:
        return _h.state["site"]
    if user is None:
        return None
    if isinstance(user, str):
        return user
    return user["name"]


class _CallableDict(dict):
    def __call__(self):
        return dict(self)


class _Meta(type):
    def __call__(cls, **kwargs):
        return cls.create(**kwargs)

    def __getattr__(cls, name):
        # factory_boy exposes declared defaults as class attributes (factories.User.password)
        for klass in cls.__mro__:
            d = klass.__dict__.get("defaults", {})
            if name in d:
                v = d[name]
                return v() if callable(v) else v
        raise AttributeError(name)


class Factory(metaclass=_Meta):
    action = None
    defaults = {}
    keep_user = False

    @classmethod
    def _attributes(cls, kwargs):
        data = {}
        lazy = {}
        for klass in reversed(cls.__mro__):
            for k, v in klass.__dict__.get("defaults", {}).items():
                data[k] = v
            if V29:
                for k, v in klass.__dict__.get("defaults_29", {}).items():
                    data[k] = v
                lazy.update(klass.__dict__.get("lazy_29", {}))
        out = {}
        for k, v in data.items():
            if k in kwargs:
                continue
            out[k] = v() if callable(v) else v
        out.update(kwargs)
        # factory_boy's LazyAttribute: defaults made from the other attributes
        for k, fn in lazy.items():
            if k not in kwargs:
                out[k] = fn(out)
        return out

    @classmethod
    def create(cls, **kwargs):
        if cls.action is None:
            _h.not_applicable(cls.__name__ + " factory writes to the database directly")
        data = cls._attributes(kwargs)
        context = data.pop("context", None)
        if context is None:
            if cls.keep_user:
                context = {}
            else:
                context = {"user": _site_user_name(data)}
        return cls.postprocess(_h.call_action(cls.action, context, **data))

    @classmethod
    def postprocess(cls, result):
        return result

    @classmethod
    def create_batch(cls, size, **kwargs):
        return [cls.create(**kwargs) for _ in range(size)]

    @classmethod
    def stub(cls, **kwargs):
        data = cls._attributes(kwargs)
        return types.SimpleNamespace(**data)

    @classmethod
    def build(cls, **kwargs):
        return cls._attributes(kwargs)

    @classmethod
    def attributes(cls, create=False, extra=None):
        # CKAN 2.9's tests call the answer too: factories.User.attributes()()
        return _CallableDict(cls._attributes(dict(extra or {})))

    @classmethod
    def model(cls, **kwargs):
        _h.not_applicable("factory .model() reads the SQLAlchemy model")


class User(Factory):
    action = "user_create"
    defaults = {
        "fullname": _person,
        "password": _password,
        "about": lambda: _text(60),
        "image_url": _image_url,
        "name": _user_name,
        "email": _email,
        "reset_key": None,
        "sysadmin": False,
    }
    defaults_29 = {
        "fullname": "Mr. Test User",
        "password": "RandomPassword123",
        "about": "Just another test user.",
        "image_url": "https://placekitten.com/g/200/100",
    }
    lazy_29 = {"email": lambda d: "%s@ckan.org" % d["name"].lower()}

    @classmethod
    def create(cls, **kwargs):
        data = cls._attributes(kwargs)
        data.pop("reset_key", None)
        if data.get("sysadmin") is False:
            data.pop("sysadmin")
        context = data.pop("context", None) or {"user": _h.state["site"]}
        return cls.postprocess(_h.call_action(cls.action, context, **data))


class Sysadmin(User):
    defaults = {"sysadmin": True}
    defaults_29 = {"fullname": "Mr. Test Sysadmin", "about": "Just another test sysadmin."}


class Resource(Factory):
    action = "resource_create"
    defaults = {
        "name": _name("resource"),
        "description": lambda: _text(60),
        "format": _file_extension,
        "url": _url,
        "url_type": None,
        "package_id": lambda: Dataset()["id"],
    }
    defaults_29 = {"description": "Just another test resource.", "format": "res_format", "url": "http://link.to.some.data"}


class ResourceView(Factory):
    action = "resource_view_create"
    defaults = {
        "title": _name("resource-view"),
        "description": lambda: _text(60),
        "view_type": "image_view",
        "resource_id": lambda: Resource()["id"],
    }


class Group(Factory):
    action = "group_create"
    defaults = {
        "name": _name("group"),
        "title": _company,
        "description": lambda: _text(60),
        "image_url": _image_url,
    }
    defaults_29 = {"description": "A test description for this test group."}
    lazy_29 = {"title": lambda d: d["name"].replace("_", " ").title()}


class Organization(Group):
    action = "organization_create"
    defaults = {"name": _name("organization"), "is_organization": True, "type": "organization"}
    defaults_29 = {"title": "Test Organization", "description": "Just another test organization."}
    lazy_29 = {}


class Dataset(Factory):
    action = "package_create"
    defaults = {
        "name": _name("dataset"),
        "title": lambda: _sentence(5),
        "notes": lambda: _text(60),
    }
    defaults_29 = {"title": "Test Dataset", "notes": "Just another test dataset."}


class Vocabulary(Factory):
    action = "vocabulary_create"
    defaults = {"name": _name("vocabulary")}


class Tag(Factory):
    action = "tag_create"
    defaults = {"name": _name("tag"), "vocabulary_id": lambda: Vocabulary()["id"]}


class APIToken(Factory):
    action = "api_token_create"
    keep_user = True
    defaults = {"name": _person, "user": lambda: User()["id"]}


class UserWithToken(User):
    defaults = {"password": "correct123"}

    @classmethod
    def postprocess(cls, result):
        result["token"] = APIToken(user=result["id"])["token"]
        return result


class SysadminWithToken(Sysadmin):
    defaults = {"password": "correct123"}

    @classmethod
    def postprocess(cls, result):
        result["token"] = APIToken(user=result["id"])["token"]
        return result


class SystemInfo(Factory):
    action = None


class MockUser(Factory):
    action = None


def __getattr__(name):
    return _h.Inert("ckan.tests.factories." + name)
