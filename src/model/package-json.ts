// Each dataset's package_show dict kept ready in the database (table package_json): a dict missing
// from this process's cache is then one row read by primary key, not seven queries and an assembly.
//
// How the rows stay right: the triggers of migration 0011 delete a dataset's row in the same
// transaction as any change-log row naming it (every write that changes a dataset's dict logs
// one), its organization or groups, or a vocabulary or deleted tag it has; such changes also move
// `dict_epoch`. A dict is stored only when nothing it embeds can have changed since it was read:
// - by a dataset write, in its own batch after its change-log rows, if the epoch has not moved
//   past what the writing context had seen when it began (ActionContext.seenSeq);
// - by a read that assembled it (a later batch, DictRefills), if neither the epoch nor the
//   dataset's own log moved past the change-log head read in the same snapshot as its rows.
// Other inputs of a dict (the site URL, metadata schemas, the dict format of this code) are in
// the row's fingerprint: a row made under others is not used, and is replaced when read again.
import type { ActionContext, Deps } from '../context'
import type { RawStatement } from '../db/executor'
import { adoptJson } from '../lib/json'
import { packText, unpackText } from '../lib/packed-text'
import { shortHash } from '../lib/short-hash'
import type { SchemaRegistry } from '../scheming/registry'
import type { PackageDict } from './package'

/**
 * The stored dicts' format: bump it with any change to what assemblePackageDict (package-dict.ts)
 * or what it calls puts in a dict, so rows stored by older code are not served.
 */
export const DICT_FORMAT = 1

const schemaPrints = new WeakMap<SchemaRegistry, string>()

function schemasPrint(s: SchemaRegistry | undefined): string {
  if (!s) return '-'
  let p = schemaPrints.get(s)
  if (p === undefined) {
    const parts = [...s.datasets.values()].map((d) => [d.type, d.expanded, d.env.localeDefault])
    p = shortHash(JSON.stringify([s.datasetFallback, parts]))
    schemaPrints.set(s, p)
  }
  return p
}

let lastPrint: { site: string; schemas: SchemaRegistry | undefined; fp: string } | null = null

/** What a stored dict was made under besides its rows: the format, the site URL, the schemas. */
export function dictFingerprint(ctx: Pick<ActionContext, 'config' | 'schemas'>): string {
  const site = ctx.config.str('service.site_url')
  if (lastPrint && lastPrint.site === site && lastPrint.schemas === ctx.schemas) return lastPrint.fp
  const fp = `${DICT_FORMAT}.${shortHash(site)}.${schemasPrint(ctx.schemas)}`
  lastPrint = { site, schemas: ctx.schemas, fp }
  return fp
}

/**
 * The stored dicts of these datasets made under the current fingerprint (absent ones are not in
 * the map). Each comes marked immutable with its JSON text, which answers reuse as it is.
 */
export async function readStoredDicts(ctx: ActionContext, ids: string[]): Promise<Map<string, PackageDict>> {
  const out = new Map<string, PackageDict>()
  const fp = dictFingerprint(ctx)
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500)
    const rows = await ctx.read(
      `SELECT package_id, dict FROM package_json WHERE package_id IN (${part.map(() => '?').join(', ')}) AND fp = ?`,
      [...part, fp],
    )
    for (const r of rows) {
      const text = unpackText(r.dict)
      if (text === null) continue
      out.set(String(r.package_id), adoptJson(JSON.parse(text) as PackageDict, text))
    }
  }
  return out
}

const INSERT = 'INSERT OR REPLACE INTO package_json (package_id, fp, dict) SELECT ?, ?, ? '
const EPOCH = '(SELECT seq FROM dict_epoch WHERE id = 1)'

/**
 * The statement that stores a dataset write's new dict (`text`: its asciiJson), to come after the
 * batch's change-log rows; null when the context does not know what it had seen (seenSeq).
 */
export function storeDictStatement(ctx: ActionContext, id: string, text: string): RawStatement | null {
  if (ctx.seenSeq === undefined) return null
  return { sql: `${INSERT}WHERE ${EPOCH} <= ?`, args: [id, dictFingerprint(ctx), packText(text), ctx.seenSeq] }
}

interface Refill {
  id: string
  fp: string
  text: string
  /** The change-log head in the snapshot the dict was assembled from. */
  seq: number
}

/** At most this many dicts wait to be stored (a bulk re-index does not fill memory with them). */
const MAX_PENDING = 500
/** Dicts stored per transaction. */
const CHUNK = 100

/**
 * Dicts assembled by reads, waiting to be stored: this process's (or isolate's) queue, written
 * by writeDictRefills (Node: on a timer; Workers: after the request that finds some waiting).
 */
export class DictRefills {
  private pending = new Map<string, Refill>()
  /** Whether another dict would be kept (callers skip serialising one that would not). */
  wants(): boolean {
    return this.pending.size < MAX_PENDING
  }
  add(r: Refill) {
    if (this.pending.size < MAX_PENDING || this.pending.has(r.id)) this.pending.set(r.id, r)
  }
  get size() {
    return this.pending.size
  }
  /** Takes up to `n` waiting dicts out of the queue. */
  take(n: number): Refill[] {
    const out: Refill[] = []
    for (const [id, r] of this.pending) {
      if (out.length >= n) break
      out.push(r)
      this.pending.delete(id)
    }
    return out
  }
}

/**
 * Stores the dicts waiting in `deps.dictRefills`, CHUNK to a transaction (a macrotask between
 * them), outside the change log: nothing an answer shows changes. Each is stored only if nothing
 * it embeds changed since its snapshot. Resolves to how many were offered to the database.
 */
export async function writeDictRefills(deps: Pick<Deps, 'dictRefills' | 'db'>): Promise<number> {
  const queue = deps.dictRefills
  if (!queue) return 0
  let n = 0
  for (let part = queue.take(CHUNK); part.length; part = queue.take(CHUNK)) {
    const stmts = part.map((r) => ({
      sql:
        `${INSERT}WHERE ${EPOCH} <= ? AND coalesce((SELECT max(seq) FROM change_log ` +
        "WHERE entity_type = 'package' AND entity_id = ?), 0) <= ?",
      args: [r.id, r.fp, packText(r.text), r.seq, r.id, r.seq],
    }))
    await deps.db.$client.batch(stmts, 'write')
    n += part.length
    if (queue.size) await new Promise((resolve) => setTimeout(resolve, 0))
  }
  return n
}
