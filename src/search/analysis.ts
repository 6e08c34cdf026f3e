// Text analysis for the search index and queries: the token chains of the CKAN Solr schema.
import { stemEnglish } from './stemmer'

/** A token and its position (phrase queries need adjacent positions). */
export interface Token {
  term: string
  position: number
}

interface Chain {
  /** Split at lower→upper case changes (`WiFi` → `Wi`, `Fi`). */
  splitOnCaseChange: boolean
  /** Also emit the concatenation of runs of word parts / number parts (index side only). */
  catenate: boolean
  stem: boolean
  fold: boolean
}

// ckan: the schema's `text` type has no stop-word filter, so every word is indexed and searchable.
const ENGLISH_INDEX: Chain = { splitOnCaseChange: true, catenate: true, stem: true, fold: true }
const ENGLISH_QUERY: Chain = { ...ENGLISH_INDEX, catenate: false }
// `textgen` (author, maintainer, res_name, res_description): no stemming, case split or folding
const GENERIC_INDEX: Chain = { splitOnCaseChange: false, catenate: true, stem: false, fold: false }
const GENERIC_QUERY: Chain = { ...GENERIC_INDEX, catenate: false }

/** English text field (`text`, `title`, `notes`, `extras_*`, `urls`...), index side. */
export const analyzeIndex = (text: string) => terms(text, ENGLISH_INDEX)
/** English text field, query side: like the index side without the concatenated forms. */
export const analyzeQuery = (text: string) => terms(text, ENGLISH_QUERY)
export const analyzeIndexTokens = (text: string) => tokens(text, ENGLISH_INDEX)
export const analyzeQueryTokens = (text: string) => tokens(text, ENGLISH_QUERY)
/** Generic text field (`textgen`), index side. */
export const analyzeGenericIndex = (text: string) => terms(text, GENERIC_INDEX)
export const analyzeGenericQuery = (text: string) => terms(text, GENERIC_QUERY)
export const analyzeGenericIndexTokens = (text: string) => tokens(text, GENERIC_INDEX)
export const analyzeGenericQueryTokens = (text: string) => tokens(text, GENERIC_QUERY)

/**
 * Normalises a wildcard / prefix / fuzzy term for an English text field: lower-cased and folded,
 * never split or stemmed (Solr's multi-term analysis). Generic text fields only lower-case.
 */
export const analyzeMultiTerm = (text: string) => foldToAscii(lowerCase(text))
export const analyzeGenericMultiTerm = (text: string) => lowerCase(text)

/**
 * Exact (`string`) fields: the whole value, case-sensitive and untouched. Booleans become
 * `true`/`false` as the Solr client sends them; null/undefined have no value.
 */
export function exactValue(v: unknown): string | null {
  if (v === null || v === undefined) return null
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return JSON.stringify(v)
}

/** `name_ngram` / `title_ngram`, index side: every 2–10 character substring, lower-cased. */
export function ngramIndex(value: string): string[] {
  const chars = [...value]
  const out: string[] = []
  for (let i = 0; i < chars.length; i++) {
    for (let n = 2; n <= 10 && i + n <= chars.length; n++) {
      out.push(lowerCase(chars.slice(i, i + n).join('')))
    }
  }
  return out
}
/** Ngram fields, query side: whitespace-separated words, lower-cased. */
export const ngramQuery = (text: string) => splitWhitespace(text).map(lowerCase)

// Words repeat a lot (Zipf): the terms of each distinct word are remembered per chain.
const WORD_CACHE_MAX = 200_000
const wordCaches = new Map<Chain, Map<string, string[]>>()

function terms(text: string, chain: Chain): string[] {
  let cache = wordCaches.get(chain)
  if (!cache) wordCaches.set(chain, (cache = new Map()))
  const out: string[] = []
  for (const word of splitWhitespace(text)) {
    let parts = cache.get(word)
    if (!parts) {
      parts = wordDelimiter(word, chain).map((p) => finish(p.text, chain))
      if (cache.size >= WORD_CACHE_MAX) cache.clear()
      cache.set(word, parts)
    }
    for (let i = 0; i < parts.length; i++) out.push(parts[i]!)
  }
  return out
}

function tokens(text: string, chain: Chain): Token[] {
  const out: Token[] = []
  let position = -1
  for (const word of splitWhitespace(text)) {
    const parts = wordDelimiter(word, chain)
    if (parts.length === 0) {
      position++ // a word of punctuation only leaves a gap, as in Lucene
      continue
    }
    for (const part of parts) {
      if (!part.catenated) position++ // a concatenation shares its first part's position
      out.push({ term: finish(part.text, chain), position })
    }
  }
  return out
}

function finish(term: string, chain: Chain): string {
  let t = lowerCase(term)
  if (chain.stem) t = stemEnglish(t)
  return chain.fold ? foldToAscii(t) : t
}

// Java's Character.isWhitespace (no-break spaces are not whitespace)
const WHITESPACE =
  /[\t\n\u000b\f\r\u001c-\u001f \u1680\u2000-\u2006\u2008-\u200a\u2028\u2029\u205f\u3000]+/

export function splitWhitespace(text: string): string[] {
  return text.split(WHITESPACE).filter((w) => w !== '')
}

/** Lower-cases code point by code point (no locale or context rules, like Java). */
export function lowerCase(s: string): string {
  if (/^[\u0000-\u007f]*$/.test(s)) return s.toLowerCase()
  let out = ''
  for (const ch of s) out += [...ch.toLowerCase()][0] ?? ch
  return out
}

// ---- word delimiter -------------------------------------------------------------------------

const LOWER = 1
const UPPER = 2
const DIGIT = 4
const DELIM = 8
const ALPHA = LOWER | UPPER

function charType(ch: string): number {
  const c = ch.charCodeAt(0)
  if (c < 128) {
    if (c >= 97 && c <= 122) return LOWER
    if (c >= 65 && c <= 90) return UPPER
    if (c >= 48 && c <= 57) return DIGIT
    return DELIM
  }
  if (c >= 0xd800 && c <= 0xdfff) return ALPHA | DIGIT // never split a surrogate pair
  if (/\p{Lu}/u.test(ch)) return UPPER
  if (/\p{Ll}/u.test(ch)) return LOWER
  if (/[\p{Lt}\p{Lm}\p{Lo}\p{M}]/u.test(ch)) return ALPHA
  if (/\p{N}/u.test(ch)) return DIGIT
  return DELIM
}

function isBreak(last: number, type: number, splitOnCaseChange: boolean): boolean {
  if ((type & last) !== 0) return false
  if (!splitOnCaseChange && last & ALPHA && type & ALPHA) return false
  if (last & UPPER && type & ALPHA) return false // upper → lower is one word (`Wi`)
  return true
}

interface Part {
  text: string
  catenated: boolean
}

/**
 * Splits one whitespace-delimited word into parts at non-alphanumerics, letter/digit changes and
 * (optionally) lower→upper case changes; drops an English possessive `'s`; with `catenate`, also
 * returns each run of 2+ word parts (or number parts) joined, right after the run's first part.
 */
export function wordDelimiter(
  word: string,
  opts: { splitOnCaseChange: boolean; catenate: boolean },
): Part[] {
  const type = (i: number) => charType(word[i]!)
  let start = 0
  let end = word.length
  while (start < end && type(start) === DELIM) start++
  while (end > start && type(end - 1) === DELIM) end--
  const possessiveAt = (pos: number) =>
    pos > 2 &&
    word[pos - 2] === "'" &&
    (word[pos - 1] === 's' || word[pos - 1] === 'S') &&
    (type(pos - 3) & ALPHA) !== 0 &&
    (pos === end || type(pos) === DELIM)
  if (possessiveAt(end)) end -= 2

  const spans: [number, number][] = []
  let i = start
  while (i < end) {
    while (i < end && type(i) === DELIM) i++
    if (i >= end) break
    let last = type(i)
    let j = i + 1
    for (; j < end; j++) {
      const t = type(j)
      if (isBreak(last, t, opts.splitOnCaseChange)) break
      last = t
    }
    spans.push([i, j])
    i = j < end - 1 && possessiveAt(j + 2) ? j + 2 : j
  }
  if (spans.length === 1 && spans[0]![0] === 0 && spans[0]![1] === word.length) {
    return [{ text: word, catenated: false }]
  }

  // Lucene emits a run's concatenation at the position of the run's first part.
  const out: Part[] = []
  let runKind = 0
  let runTexts: string[] = []
  let runAt = 0
  const flush = () => {
    if (runTexts.length > 1) out.splice(runAt + 1, 0, { text: runTexts.join(''), catenated: true })
    runTexts = []
  }
  for (const [a, b] of spans) {
    const first = type(a)
    const kind = first & ALPHA && !(first & DIGIT) ? ALPHA : first
    if (runTexts.length > 0 && (runKind & kind) === 0) flush()
    const text = word.slice(a, b)
    if (opts.catenate) {
      if (runTexts.length === 0) {
        runKind = kind
        runAt = out.length
      }
      runTexts.push(text)
    }
    out.push({ text, catenated: false })
  }
  flush()
  return out
}

// ---- ASCII folding --------------------------------------------------------------------------

const FOLD_SPECIAL: Record<string, string> = {
  æ: 'ae',
  Æ: 'AE',
  ø: 'o',
  Ø: 'O',
  œ: 'oe',
  Œ: 'OE',
  ß: 'ss',
  ẞ: 'SS',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'TH',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ħ: 'h',
  Ħ: 'H',
  ı: 'i',
  ĸ: 'q',
  ŀ: 'l',
  Ŀ: 'L',
  ŋ: 'n',
  Ŋ: 'N',
  ŧ: 't',
  Ŧ: 'T',
  ſ: 's',
  ƒ: 'f',
  ƀ: 'b',
  ƈ: 'c',
  ɗ: 'd',
  ɠ: 'g',
  ƙ: 'k',
  ƚ: 'l',
  ɲ: 'n',
  ƥ: 'p',
  ƭ: 't',
  ʈ: 't',
  ȥ: 'z',
  ɐ: 'a',
  ə: 'e',
  ɛ: 'e',
  ɔ: 'o',
}

// Latin letters (with diacritics), Latin ligatures and full-width ASCII: the ranges where
// compatibility decomposition gives the plain ASCII letter Lucene's folding table gives.
const FOLDABLE = /[\u00c0-\u024f\u1e00-\u1eff\u2c60-\u2c7f\ua720-\ua7ff\ufb00-\ufb06\uff01-\uff5e]/

/** Folds Latin letters with diacritics (and ligatures, full-width forms) to plain ASCII. */
export function foldToAscii(s: string): string {
  if (/^[\u0000-\u007f]*$/.test(s)) return s
  let out = ''
  for (const ch of s) {
    const special = FOLD_SPECIAL[ch]
    if (special !== undefined) out += special
    else if (FOLDABLE.test(ch)) {
      const plain = ch.normalize('NFKD').replace(/\p{M}/gu, '')
      out += /^[\u0000-\u007f]+$/.test(plain) ? plain : ch
    } else out += ch
  }
  return out
}
