// The only way a user-supplied name reaches DataStore SQL: validate with CKAN's rules, then quote.

/** Longest column name PostgreSQL keeps (CKAN refuses longer headings). */
export const MAX_FIELD_LENGTH = 63

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/

/** CKAN's field-name rule: not empty, no surrounding spaces, no leading `_`, no `"`; and no control characters. */
export function isValidFieldName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name.length > 0 &&
    name.trim() === name &&
    !name.startsWith('_') &&
    !name.includes('"') &&
    !CONTROL.test(name)
  )
}

/**
 * Table names are catalogue resource ids. Names starting with `_` or `sqlite_` are ours or SQLite's,
 * so a resource with such an id cannot have a table.
 */
export const isValidTableName = (name: unknown): name is string =>
  isValidFieldName(name) && !name.toLowerCase().startsWith('sqlite_')

/** Aliases are views beside the tables: the table rule, and no `%` either. */
export const isValidAliasName = (name: unknown): name is string =>
  isValidTableName(name) && !name.includes('%')

/** A double-quoted SQL identifier. Callers must have validated the name first. */
export function quoteIdent(name: string): string {
  return '"' + name.replaceAll('"', '""') + '"'
}

/** Names of the internal objects that belong to table `id` (always built from a validated id). */
export const internalNames = (id: string) => ({
  fts: `_fts_${id}`,
  pk: `_pk_${id}`,
  index: (n: number) => `_idx_${id}_${n}`,
  trigger: (op: 'ins' | 'upd' | 'del') => `_trg_${id}_${op}`,
})
