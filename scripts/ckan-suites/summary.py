"""Summarises a harness report: the pass rate over the tests that can run over HTTP."""
import collections
import json
import re
import sys

report = json.load(open(sys.argv[1]))
tag = sys.argv[2] if len(sys.argv) > 2 else ""
results = report["results"]
passed = [k for k, v in results.items() if v["outcome"] == "passed"]
failed = {k: v for k, v in results.items() if v["outcome"] == "failed"}
skipped = {k: v for k, v in results.items() if v["outcome"] == "skipped"}
na = {k: v for k, v in skipped.items() if "N/A:" in v["why"]}
own_skips = {k: v for k, v in skipped.items() if k not in na}
applicable = len(passed) + len(failed)
rate = 100.0 * len(passed) / applicable if applicable else 0.0
print("%s: %d passed, %d failed of %d applicable (%.1f %%); %d not applicable over HTTP, %d skipped by CKAN"
      % (tag, len(passed), len(failed), applicable, rate, len(na), len(own_skips)))
by = collections.Counter(re.sub(r"N/A: ([^:(]*).*", r"\1", v["why"]).strip() for v in na.values())
for why, n in by.most_common(12):
    print("  n/a %4d  %s" % (n, why))
print("calls redone with authorization skipped (CKAN's helper default) after the API refused them: %d"
      % report["stats"].get("auth_skipped", 0))
if "-v" in sys.argv:
    for k, v in sorted(failed.items()):
        print("FAIL %s\n     %s" % (k, v["why"].replace("\n", " ")[:300]))
