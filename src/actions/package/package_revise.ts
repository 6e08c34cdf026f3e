// package_revise: a dataset update guarded by a match on its current values (safe concurrent edits).
import { z } from 'zod'
import { defineAction } from '../action'
import { reviseRules } from '../../auth/package'
import { reviseParams, revisePackage } from '../../model/package-revise'

export const packageRevise = defineAction({
  name: 'package_revise',
  readOnly: false,
  help: `Revise a dataset (package): check its current values, then filter and update them.

The check and the write are one step: if the dataset changes between them (another revise,
an update from anywhere), the match is checked again against the new values. Use this rather
than package_show followed by package_update for edits that must not overwrite others.
You must be allowed to edit the dataset.

:param match: values the dataset must have now, e.g. {"name": "my-data", "title": "Old"};
    it must give the dataset's "id" or "name". Resources and other lists match item by item.
    If any value differs nothing is written, and the Validation Error lists the keys that
    differ: {"message": [{"match": ["title"]}]}
:type match: dict
:param filter: key patterns removed from the dataset before the update, e.g.
    "-resources__1" removes the second resource, ["+title", "+resources", "-*"] removes
    every dataset field except the title and the resources; "*" matches every key or item
    at its level and "+" protects what it matches (the first matching pattern decides)
:type filter: list of strings, or a comma-separated string
:param update: values merged into the dataset after filtering; dicts merge key by key and
    lists item by item, e.g. {"resources": [{"description": "first file"}]}
:type update: dict
:param include: key patterns (as filter) applied to the result, e.g. "-*" returns nothing
:type include: list of strings, or a comma-separated string

match and update may also be given as flattened keys, each value JSON or a plain string:
match__name="my-data", update__notes="new notes", update__resources__0={"name": "first"},
update__resources__-1__name="last" (negative indexes count from the end),
update__resources__1f9ab__description="..." (a resource by the first five or more
characters of its id; the first match is used), update__resources__extend=[{"name": "new",
"url": "http://example.com/new.csv"}] (adds items to a list). match and update may be JSON
strings too, as form posts send them.

:returns: {"package": <the updated dataset, filtered by include>}
:rtype: dictionary`,
  // ckan: the parameters, the match and package_show's rule come before the update rights, and
  // package_update's rule judges the revised dict: auth/'s reviseRules are asked between the reads
  auth: 'anyone',
  params: z.record(z.string(), z.unknown()),
  async run(ctx, _params, input) {
    return revisePackage(ctx, reviseParams(input), reviseRules(ctx))
  },
})
