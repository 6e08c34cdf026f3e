// What the DCAT harvesters share: the local dataset a guid was written to before (so an update
// keeps its name and its resources' ids, as ckanext-dcat's harvesters do) and the site's schema.
import { systemContext } from '../../../context'
import { currentObjectOfGuid } from '../../../model/harvest'
import { findPackage, packageDicts } from '../../../model/package'
import { dcatSchemaInfo, type DcatSchemaInfo } from '../dcat-parse'
import type { ImportContext } from '../types'

type Dict = Record<string, any>

/** The dataset this source wrote for `guid` before, when it still exists. */
export async function previousDataset(ctx: ImportContext, guid: string): Promise<Dict | undefined> {
  const cur = await currentObjectOfGuid(ctx.deps, ctx.source.id, guid)
  if (!cur?.package_id) return undefined
  const actx = systemContext(ctx.deps)
  const row = await findPackage(actx, cur.package_id)
  if (!row || row.id !== cur.package_id || row.state === 'deleted') return undefined
  return (await packageDicts(actx, [row.id])).get(row.id)
}

/**
 * Readies a new dataset dict against the one written before: the name stays, and a resource that
 * matches an old one (by `key`: its uri, its url...) keeps the old one's id.
 */
export function keepIdentity(dict: Dict, before: Dict | undefined, key: (r: Dict) => string | undefined) {
  if (!before) return dict
  delete dict.name
  const old = new Map<string, string>()
  for (const r of (before.resources ?? []) as Dict[]) {
    const k = key(r)
    if (k && !old.has(k)) old.set(k, r.id)
  }
  for (const r of (dict.resources ?? []) as Dict[]) {
    const k = key(r)
    const id = k ? old.get(k) : undefined
    if (id) {
      r.id = id
      old.delete(k!)
    }
  }
  return dict
}

/** The site's schema for datasets of type `dataset`, as the DCAT mapping wants it. */
export function siteSchema(ctx: ImportContext, type = 'dataset'): DcatSchemaInfo | undefined {
  return dcatSchemaInfo(ctx.deps.schemas?.dataset(type)?.expanded as never)
}

/** A source config flag given as true or "true". */
export const flag = (config: Record<string, unknown>, key: string) => config[key] === true || config[key] === 'true'
