"""ckanapi's RemoteCKAN against the catalogue: the calls a script written for CKAN makes.

Run by ckanapi-check.sh with ckanapi's source on PYTHONPATH (taken from a git mirror at run time)
and the harness server (server.ts) at HARNESS_URL. Prints one line per check and exits non-zero
on the first failure.
"""
import io
import os
import sys
import urllib.parse

import requests
import ckanapi

BASE = os.environ["HARNESS_URL"]
version = os.environ["API_COMPAT"]

site = requests.post(BASE + "/__harness/reset", json={"clean": True, "config": {}}).json()
headers = site["credential"]
if "Authorization" in headers:
    key = headers["Authorization"]
else:
    # 2.10 and later: an API token, made through the site user's session
    key = requests.post(BASE + "/api/3/action/api_token_create", json={"user": site["site_user"], "name": "ckanapi"},
                        headers=headers).json()["result"]["token"]

ua = "ckanapi-check/1.0 (+https://github.com/ckan/ckanapi)"
ck = ckanapi.RemoteCKAN(BASE, apikey=key, user_agent=ua)
anon = ckanapi.RemoteCKAN(BASE, user_agent=ua)
checks = 0


def check(what, cond):
    global checks
    if not cond:
        print("FAIL %s (api_compat %s)" % (what, version))
        sys.exit(1)
    checks += 1
    print("ok   %s" % what)


org = ck.action.organization_create(name="ckanapi-org", title="Org")
check("organization_create", org["name"] == "ckanapi-org")
ds = ck.action.package_create(name="ckanapi-ds", title="From ckanapi", owner_org=org["id"],
                              tags=[{"name": "alpha"}], extras=[{"key": "k", "value": "v"}])
check("package_create", ds["name"] == "ckanapi-ds" and ds["tags"][0]["name"] == "alpha")
priv = ck.action.package_create(name="ckanapi-private", owner_org=org["id"], private=True)
check("package_show (anonymous, GET)", anon.action.package_show(id="ckanapi-ds")["title"] == "From ckanapi")
try:
    anon.action.package_show(id="ckanapi-private")
    check("private dataset refused to anonymous", False)
except ckanapi.NotAuthorized:
    check("private dataset refused to anonymous (NotAuthorized)", True)
try:
    ck.action.package_show(id="no-such-dataset")
    check("NotFound", False)
except ckanapi.NotFound:
    check("unknown dataset (NotFound)", True)
try:
    ck.action.package_create(name="Bad Name!")
    check("ValidationError", False)
except ckanapi.ValidationError as e:
    check("invalid name (ValidationError with per-field errors)", "name" in e.error_dict)
res = ck.action.resource_create(package_id=ds["id"], name="data", upload=("data.csv", io.BytesIO(b"a,b\n1,2\n")))
check("resource_create with an upload", res["url_type"] == "upload" and res["url"].endswith("data.csv"))
# the harness's site_url is CKAN's test one (test.ckan.net): the path is fetched from the server
got = requests.get(BASE + urllib.parse.urlparse(res["url"]).path)
check("the upload downloads", got.status_code == 200 and got.content == b"a,b\n1,2\n")
upd = ck.action.package_patch(id=ds["id"], notes="patched")
check("package_patch", upd["notes"] == "patched" and len(upd["resources"]) == 1)
found = ck.action.package_search(q="ckanapi", rows=10)
check("package_search (the caller's datasets, no private ones unless asked)",
      found["count"] == 1 and found["results"][0]["name"] == "ckanapi-ds")
found = ck.action.package_search(q="ckanapi", include_private=True)
check("package_search include_private", found["count"] == 2)
table = ck.action.datastore_create(resource={"package_id": ds["id"], "name": "table"},
                                   fields=[{"id": "x", "type": "int"}, {"id": "y", "type": "text"}],
                                   records=[{"x": 1, "y": "one"}, {"x": 2, "y": "two"}], primary_key=["x"])
check("datastore_create", table["resource_id"])
ck.action.datastore_upsert(resource_id=table["resource_id"], records=[{"x": 2, "y": "TWO"}], method="upsert")
rows = anon.action.datastore_search(resource_id=table["resource_id"], sort="x")
check("datastore_upsert + datastore_search", [r["y"] for r in rows["records"]] == ["one", "TWO"])
sql = ck.action.datastore_search_sql(sql='SELECT count(*) AS n FROM "%s"' % table["resource_id"])
check("datastore_search_sql", int(sql["records"][0]["n"]) == 2)
ck.action.package_delete(id=priv["id"])
check("package_delete", ck.action.package_show(id=priv["id"])["state"] == "deleted")
try:
    bad = ckanapi.RemoteCKAN(BASE, apikey="not-a-key", user_agent=ua)
    bad.action.package_create(name="nope")
    check("a wrong key is refused", False)
except ckanapi.NotAuthorized:
    check("a wrong key is refused (NotAuthorized)", True)
from ckanapi.version import __version__ as ckanapi_version

print("%d checks passed with ckanapi %s under api_compat %s" % (checks, ckanapi_version, version))
