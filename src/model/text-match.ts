// Case-insensitive literal text matching in SQL (CKAN's ILIKE), Unicode-aware without ICU.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm'

// eslint-disable-next-line no-control-regex
const isAscii = (s: string) => /^[\x00-\x7f]*$/.test(s)

// SQLite refuses GLOB/LIKE patterns longer than 50,000 bytes; stay well below.
const MAX_GLOB_CHARS = 2000

/** One character of a GLOB pattern that matches `ch` in any case; `*`, `?`, `[` literal. */
function globChar(ch: string): string {
  const variants = [...new Set([ch, ch.toLowerCase(), ch.toUpperCase()])].filter(
    (v) => [...v].length === 1,
  )
  if (variants.length > 1) return `[${variants.join('')}]`
  return ch === '*' || ch === '?' || ch === '[' ? `[${ch}]` : ch
}

/** A GLOB pattern matching `term` literally and case-insensitively. */
const globText = (term: string) => [...term].map(globChar).join('')

/**
 * `col` contains `term`, ignoring case; `%` and `_` are plain characters. SQLite's lower() only
 * folds ASCII, so a non-ASCII term becomes a GLOB of per-character case classes.
 */
export function containsCi(col: SQLWrapper, term: string): SQL {
  if (isAscii(term) || [...term].length > MAX_GLOB_CHARS)
    return sql`instr(lower(${col}), ${term.toLowerCase()}) > 0`
  return sql`${col} GLOB ${'*' + globText(term) + '*'}`
}

/** `col` starts with `term`, ignoring case (see containsCi). */
export function startsWithCi(col: SQLWrapper, term: string): SQL {
  if (isAscii(term) || [...term].length > MAX_GLOB_CHARS)
    return sql`instr(lower(${col}), ${term.toLowerCase()}) = 1`
  return sql`${col} GLOB ${globText(term) + '*'}`
}

/** `s` with LIKE's wildcards (and the escape character) escaped for `ESCAPE '\\'`. */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => '\\' + c)

/** `col` contains `term` (SQLite's LIKE: ASCII case folded); `%` and `_` match literally. */
export const likeContains = (col: SQLWrapper, term: string): SQL =>
  sql`${col} LIKE ${'%' + escapeLike(term) + '%'} ESCAPE '\\'`
