// package_revise: check a dataset's current values, filter and update them, write only if unchanged.
import type { ActionContext } from '../context'
import type { DataDict } from '../data-dict'
import { ValidationError, type ErrorDict } from '../errors'
import { pyStr } from '../lib/py-repr'
import {
  checkDict,
  checkStringKey,
  DataError,
  filterGlobMatch,
  pyEquals,
  updateKeyOrder,
  updateMergeDict,
  updateMergeStringKey,
  type Path,
} from '../lib/dict-paths'
import { forgetPackages, loadPackage, packageDict, type PackageDict, type PackageRow } from './package'
import { updatePackage, type PackageWritePolicy } from './package-write'
import { isPackageChanged, packageVersion, packageVersionGuard } from './package-version'
import { parseBoundedJson } from '../lib/bounded-json'

type Dict = Record<string, unknown>

export interface ReviseParams {
  match?: Dict
  filter?: string[]
  update?: Dict
  include?: string[]
  /** The match__<key> parameters, by <key>. */
  matchKeys: Dict
  /** The update__<key> parameters, by <key>. */
  updateKeys: Dict
}

const NOT_JSON = Symbol('not json')

function parseJson(text: string): unknown {
  try {
    return parseBoundedJson(text)
  } catch {
    return NOT_JSON
  }
}

/** ckan json_or_string: a string that parses as JSON becomes its value; anything else stays. */
function jsonOrString(v: unknown): unknown {
  if (typeof v !== 'string') return v
  const parsed = parseJson(v)
  return parsed === NOT_JSON ? v : parsed
}

/** ckan json_list_or_string then list_of_strings: JSON, else a comma-separated list. */
function stringList(v: unknown): string[] | string {
  let value = v
  if (typeof v === 'string') {
    const parsed = parseJson(v)
    // ckan: split as is, so "+a, -b" keeps the space before "-b"
    value = parsed === NOT_JSON ? v.split(',') : parsed
  }
  if (!Array.isArray(value)) return 'Not a list'
  const bad = value.find((x) => typeof x !== 'string')
  return bad === undefined ? (value as string[]) : `Not a string: ${pyStr(bad)}`
}

const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v)

/** ckan package_revise_schema: every field's message at once, then the prefixed keys. */
export function reviseParams(input: DataDict): ReviseParams {
  const errors: ErrorDict = {}
  const out: ReviseParams = { matchKeys: {}, updateKeys: {} }
  const given = (k: string) => input[k] !== undefined && input[k] !== null // ckan ignore_missing
  for (const k of ['match', 'update'] as const) {
    if (!given(k)) continue
    const v = jsonOrString(input[k])
    if (isDict(v)) out[k] = v
    else errors[k] = ['Must be a dict']
  }
  for (const k of ['filter', 'include'] as const) {
    if (!given(k)) continue
    const v = stringList(input[k])
    if (Array.isArray(v)) out[k] = v
    else errors[k] = [v]
  }
  if (Object.keys(errors).length) throw new ValidationError(errors)
  for (const [key, value] of Object.entries(input)) {
    for (const [prefix, into] of [
      ['match__', out.matchKeys],
      ['update__', out.updateKeys],
    ] as const) {
      if (key.startsWith(prefix) && key.length > prefix.length)
        into[key.slice(prefix.length)] = jsonOrString(value)
    }
  }
  return out
}

/** The dataset a revise names: match__id, match.id, match__name or match.name (first truthy). */
function target(p: ReviseParams): string {
  for (const v of [p.matchKeys.id, p.match?.id, p.matchKeys.name, p.match?.name])
    if (v !== undefined && v !== null && v !== '' && v !== 0 && v !== false) return String(v)
  // ckan: a bare string, not a list
  throw new ValidationError({ match__id: 'Missing value' })
}

const joined = (p: Path) => p.map(String).join('__')
const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** ckan: a failed match lists the paths that differ, inside a one-item list under `message`. */
function checkMatch(orig: PackageDict, p: ReviseParams) {
  const unmatched: Path[] = p.match ? checkDict(orig, p.match) : []
  for (const k of Object.keys(p.matchKeys).sort(byCodePoint)) {
    try {
      unmatched.push(...checkStringKey(orig, k, p.matchKeys[k]))
    } catch (e) {
      // ckan answers 500 for a match__ key that leads nowhere; here it simply does not match
      if (!(e instanceof DataError)) throw e
      unmatched.push([k])
    }
  }
  if (unmatched.length) throw new ValidationError({ message: [{ match: unmatched.map(joined) }] })
}

/** The dataset as the filter and updates leave it (a copy: `orig` is not touched). */
function revised(orig: PackageDict, p: ReviseParams): Dict {
  const out = structuredClone(orig) as Dict
  if (p.filter) {
    filterGlobMatch(out, p.filter)
    out.id = orig.id // ckan: the id survives any filter
  }
  if (p.update) {
    try {
      updateMergeDict(out, p.update)
    } catch (e) {
      if (e instanceof DataError) throw new ValidationError({ message: [{ update: [e.message] }] })
      throw e
    }
  }
  // ckan: __extend keys go first (so files can go to new resources), though by a quirk of its sort
  for (const k of updateKeyOrder(Object.keys(p.updateKeys))) {
    try {
      updateMergeStringKey(out, k, p.updateKeys[k])
    } catch (e) {
      if (e instanceof DataError) throw new ValidationError({ message: [{ [k]: [e.message] }] })
      throw e
    }
  }
  // The target is the matched dataset, whatever `id` the update gave.
  out.id = orig.id
  // Relationships given unchanged are left out, so that they stay as they are (package_patch).
  for (const k of ['relationships_as_subject', 'relationships_as_object'])
    if (pyEquals(out[k], orig[k])) delete out[k]
  return out
}

/**
 * The rules package_revise asks between its reads (auth/package.ts `reviseRules`): each throws
 * to refuse. `read` sees the stored dataset; `update` the revised dict the write would store.
 */
export interface ReviseRules {
  read(row: PackageRow): Promise<void>
  update(next: Record<string, unknown>, row: PackageRow, current: PackageDict): Promise<void>
  write: PackageWritePolicy
}

/** One read-check-write round; the write fails (isPackageChanged) if the dataset moved on. */
async function reviseOnce(ctx: ActionContext, ref: string, p: ReviseParams, rules: ReviseRules) {
  forgetPackages(ctx) // a retry reads afresh
  const { id } = await loadPackage(ctx, ref)
  // The version is read first: anything older is in the dict below, anything newer fails the write.
  const version = await packageVersion(ctx, id)
  await ctx.changes.catchUp()
  forgetPackages(ctx)
  const row = await loadPackage(ctx, id)
  await rules.read(row) // ckan: package_show's rule
  const current = await packageDict(ctx, row.id)
  checkMatch(current, p)
  const next = revised(current, p)
  await rules.update(next, row, current)
  const guard = packageVersionGuard(row.id, version)
  return updatePackage(ctx, next, row, current, rules.write, { guard })
}

const ATTEMPTS = 20

/**
 * Runs package_revise: a write that lost a race re-reads the dataset and checks the match again,
 * as CKAN's row lock would make it wait and then see the other write.
 */
export async function revisePackage(ctx: ActionContext, p: ReviseParams, rules: ReviseRules) {
  const ref = target(p)
  for (let attempt = 1; ; attempt++) {
    try {
      const dict = await reviseOnce(ctx, ref, p, rules)
      if (!p.include) return { package: dict }
      const out = { package: structuredClone(dict) }
      filterGlobMatch(out, p.include)
      return out
    } catch (e) {
      if (!isPackageChanged(e)) throw e
      if (attempt === ATTEMPTS)
        throw ValidationError.message('Package revise failed: the dataset kept changing')
      // jittered back-off, so that competing writers do not collide again in step
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt))
    }
  }
}
