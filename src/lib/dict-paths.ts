// Flattened key paths into JSON dicts (`resources__0__name`): match, filter and merge, as CKAN's navl.
//
// These follow ckan.lib.navl.dictization_functions of CKAN 2.9 (check_dict, resolve_string_key,
// filter_glob_match, update_merge_*), quirks included, because package_revise clients rely on them.

export type Path = (string | number)[]
type Dict = Record<string, unknown>

/** A path or type mismatch (ckan DataError); `message` is CKAN's wording. */
export class DataError extends Error {}

const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v)
/** Own keys only: "constructor" or "__proto__" are plain keys of a JSON dict. */
const has = (d: Dict, k: string) => Object.prototype.hasOwnProperty.call(d, k)
const put = (d: Dict, k: string, v: unknown) =>
  Object.defineProperty(d, k, { value: v, writable: true, enumerable: true, configurable: true })
const joined = (p: Path) => p.map(String).join('__')
const unmatchedKey = (p: Path) => new DataError(`Unmatched key ${joined(p)}`)

/** Python's `==` on JSON values: True == 1, 1 == 1.0, dicts and lists compared deeply. */
export function pyEquals(a: unknown, b: unknown): boolean {
  const num = (v: unknown) => typeof v === 'number' || typeof v === 'boolean'
  if (num(a) && num(b)) return Number(a) === Number(b)
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => pyEquals(x, b[i]))
  if (isDict(a) && isDict(b)) {
    const ka = Object.keys(a)
    return ka.length === Object.keys(b).length && ka.every((k) => has(b, k) && pyEquals(a[k], b[k]))
  }
  return a === b
}

/** Python's sorted() over string keys: by code point. */
const sortedKeys = (d: Dict) => Object.keys(d).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))

/** ckan check_dict: the paths of `select` whose values differ from those in `data`. */
export function checkDict(data: unknown, select: Dict, parent: Path = []): Path[] {
  if (!isDict(data)) return [parent]
  const out: Path[] = []
  for (const k of sortedKeys(select)) {
    const v = select[k]
    if (!has(data, k)) out.push([...parent, k])
    else if (isDict(v)) out.push(...checkDict(data[k], v, [...parent, k]))
    else if (Array.isArray(v)) out.push(...checkList(data[k], v, [...parent, k]))
    else if (!pyEquals(data[k], v)) out.push([...parent, k])
  }
  return out
}

/** ckan check_list: the same over a list, item by item. */
export function checkList(data: unknown, select: unknown[], parent: Path = []): Path[] {
  if (!Array.isArray(data)) return [parent]
  const out: Path[] = []
  select.forEach((v, i) => {
    if (i >= data.length) out.push([...parent, i])
    else if (isDict(v)) out.push(...checkDict(data[i], v, [...parent, i]))
    else if (Array.isArray(v)) out.push(...checkList(data[i], v, [...parent, i]))
    else if (!pyEquals(data[i], v)) out.push([...parent, i])
  })
  return out
}

/** Python int() of a key, or undefined. */
function pyInt(k: string): number | undefined {
  return /^\s*[-+]?\d+\s*$/.test(k) ? Number.parseInt(k, 10) : undefined
}

/**
 * ckan resolve_string_key: the value at a `__`-separated key and its path. In a list a key of five
 * characters or more picks the first item whose id starts with it (every item must have an id),
 * a shorter one is an index (negative from the end). Throws DataError "Unmatched key …".
 */
export function resolveStringKey(data: unknown, key: string): { value: unknown; path: Path } {
  const path: Path = []
  let cur = data
  for (const k of key.split('__')) {
    if (isDict(cur)) {
      if (!has(cur, k)) throw unmatchedKey([...path, k])
      path.push(k)
      cur = cur[k]
      continue
    }
    if (!Array.isArray(cur)) throw unmatchedKey([...path, k])
    if (k.length >= 5) {
      // ckan: the first match wins; an ambiguous prefix is not an error
      const list: unknown[] = cur
      let found = -1
      for (let i = 0; i < list.length && found < 0; i++) {
        const rec = list[i]
        if (!isDict(rec) || !has(rec, 'id')) throw unmatchedKey([...path, k])
        if (String(rec.id).startsWith(k)) found = i
      }
      if (found < 0) throw unmatchedKey([...path, k])
      path.push(found)
      cur = list[found]
      continue
    }
    const index = pyInt(k)
    if (index === undefined || index < -cur.length || index >= cur.length) throw unmatchedKey([...path, k])
    // ckan: the path keeps a negative index as given
    path.push(index)
    cur = cur[index < 0 ? cur.length + index : index]
  }
  return { value: cur, path }
}

/** ckan check_string_key: check_dict/check_list/equality at a flattened key. */
export function checkStringKey(data: unknown, key: string, value: unknown): Path[] {
  const { value: cur, path } = resolveStringKey(data, key)
  if (isDict(value)) return checkDict(cur, value, path)
  if (Array.isArray(value)) return checkList(cur, value, path)
  return pyEquals(cur, value) ? [] : [path]
}

type Glob = [keep: boolean, parts: string[]]

/**
 * ckan filter_glob_match: removes keys and items from `data` in place. Each pattern is a
 * flattened key where `*` matches everything at its level; `+` protects what it matches from the
 * removals (`-`, or no sign), and the first pattern that matches a value decides.
 */
export function filterGlobMatch(data: unknown, patterns: string[]) {
  // ckan: lstrip('-+') removes every leading sign; only the first one tells + from -
  filterGlobs(data, patterns.map((p): Glob => [p.startsWith('+'), p.replace(/^[-+]+/, '').split('__')]))
}

function filterGlobs(data: unknown, globs: Glob[]) {
  if (isDict(data)) return filterDict(data, globs)
  if (Array.isArray(data)) filterList(data, globs)
}

function filterDict(data: Dict, globs: Glob[]) {
  const kept = new Map<string, unknown>()
  const children = new Map<string, Glob[]>()
  for (const [keep, parts] of globs) {
    const head = parts[0]!
    if (head === '*') {
      if (keep) for (const k of Object.keys(data)) kept.set(k, data[k])
      else for (const k of Object.keys(data)) delete data[k]
      continue
    }
    if (!has(data, head)) continue
    if (parts.length > 1) children.set(head, [...(children.get(head) ?? []), [keep, parts.slice(1)]])
    else if (keep) kept.set(head, data[head])
    else delete data[head]
  }
  for (const [k, v] of kept) put(data, k, v)
  for (const [head, sub] of children) if (has(data, head)) filterGlobs(data[head], sub)
}

function filterList(data: unknown[], globs: Glob[]) {
  const kept = new Set<number>()
  const removed = new Set<number>()
  const children = new Map<number, Glob[]>()
  const all = () => data.map((_, i) => i)
  for (const [keep, parts] of globs) {
    const head = parts[0]!
    if (head === '*') {
      for (const i of all()) {
        if (keep && !removed.has(i)) kept.add(i)
        if (!keep && !kept.has(i)) removed.add(i)
      }
      continue
    }
    let index: number
    try {
      index = resolveStringKey(data, head).path[0] as number
    } catch (e) {
      if (e instanceof DataError) continue
      throw e
    }
    if (parts.length > 1) children.set(index, [...(children.get(index) ?? []), [keep, parts.slice(1)]])
    else if (keep) {
      if (!removed.has(index)) kept.add(index)
    } else if (!kept.has(index)) removed.add(index)
    // ckan: the children are filtered again after every pattern (idempotent, so harmless)
    for (const [i, sub] of children) {
      if (!removed.has(i) || kept.has(i)) filterGlobs(data.at(i), sub)
    }
  }
  // ckan: a negative index names an item for its children, but removes nothing
  const gone = new Set([...removed].filter((i) => !kept.has(i)))
  const rest = data.filter((_, i) => !gone.has(i))
  data.splice(0, data.length, ...rest)
}

/** ckan update_merge_dict: merges `update` into `data` in place; lists merge item by item. */
export function updateMergeDict(data: Dict, update: unknown, parent: Path = []) {
  if (!isDict(update)) throw new DataError(`Expected dict for ${joined(parent)}`)
  for (const [k, v] of Object.entries(update)) {
    const cur = data[k]
    if (!has(data, k)) put(data, k, v)
    else if (isDict(cur)) updateMergeDict(cur, v, [...parent, k])
    else if (Array.isArray(cur)) updateMergeList(cur, v, [...parent, k])
    else put(data, k, v)
  }
}

/** ckan update_merge_list: item i of `update` merges into item i of `data`, extra items append. */
export function updateMergeList(data: unknown[], update: unknown, parent: Path = []) {
  if (!Array.isArray(update)) throw new DataError(`Expected list for ${joined(parent)}`)
  update.forEach((v, i) => {
    const cur = data[i]
    if (i >= data.length) data.push(v)
    else if (isDict(cur)) updateMergeDict(cur, v, [...parent, i])
    else if (Array.isArray(cur)) updateMergeList(cur, v, [...parent, i])
    else data[i] = v
  })
}

/**
 * ckan update_merge_string_key: merges `value` at a flattened key; `<list key>__extend` appends
 * the items of a list value.
 */
export function updateMergeStringKey(data: Dict, key: string, value: unknown) {
  const parts = key.split('__')
  const last = parts.pop()!
  const head = parts.join('__')
  const { value: cur, path } = head ? resolveStringKey(data, head) : { value: data, path: [] }
  if (isDict(cur)) return updateMergeDict(cur, put({}, last, value), path)
  if (!Array.isArray(cur)) throw new DataError(`Expected list or dict for ${head}`)
  if (last === 'extend') {
    if (!Array.isArray(value)) throw new DataError(`Expected list for ${head}`)
    cur.push(...(value as unknown[]))
    return
  }
  const { value: child, path: at } = resolveStringKey(cur, last)
  const index = at[0] as number
  if (isDict(child)) updateMergeDict(child, value, [...path, index])
  else if (Array.isArray(child)) updateMergeList(child, value, [...path, index])
  else cur[index < 0 ? cur.length + index : index] = value
}

/** ckan's order of update__ keys: `…extend` keys sort as the single letter "e" (sic). */
export function updateKeyOrder(keys: string[]): string[] {
  const sortKey = (k: string) => (k.endsWith('extend') ? k[k.length - 6]! : k)
  return [...keys].sort((a, b) => {
    const x = sortKey(a)
    const y = sortKey(b)
    return x < y ? -1 : x > y ? 1 : 0
  })
}
