// CKAN 2.12's changed_entities: which objects a call really changed, for the API's envelope.
import type { ActionContext } from '../context'

/** Records that the call changed `id` of `kind` (a no-op unless the request collects them). */
export function noteChanged(ctx: ActionContext, kind: 'packages', id: string) {
  if (!ctx.changed) return
  let ids = ctx.changed.get(kind)
  if (!ids) ctx.changed.set(kind, (ids = new Set()))
  ids.add(id)
}

/** A dict without the keys every write moves (metadata_modified, at any depth), as JSON. */
function comparable(v: unknown): string {
  return JSON.stringify(v, (k, x) => (k === 'metadata_modified' ? undefined : x))
}

/** ckan 2.12: a dataset counts as changed when its dict differs beyond its modification times. */
export function datasetChanged(before: unknown, after: unknown): boolean {
  return comparable(before) !== comparable(after)
}
