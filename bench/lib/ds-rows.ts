// Deterministic rows for the DataStore benchmark: 10 mixed-type columns, generated batch by batch
// (each batch from its own seed), so the HTTP load and the raw baseline write the very same rows
// without keeping a million of them in memory.
import { corpus, rng, type Corpus } from './generate'

/** The table's fields as datastore_create receives them: explicit types, `category` indexed. */
export const DS_FIELDS = [
  { id: 'id', type: 'int' },
  { id: 'amount', type: 'float' },
  { id: 'price', type: 'numeric' },
  { id: 'title', type: 'text' },
  { id: 'code', type: 'text' },
  { id: 'active', type: 'bool' },
  { id: 'day', type: 'date' },
  { id: 'seen', type: 'timestamp' },
  { id: 'category', type: 'int' },
  { id: 'note', type: 'text' },
] as const

export const CATEGORIES = 100
const SEED = 11
const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ'
const DAY_MS = 86_400_000
const BASE_DAY = Date.UTC(2015, 0, 1)

export type DsRecord = Record<(typeof DS_FIELDS)[number]['id'], unknown>

let shared: Corpus | undefined
/** The generator's vocabulary (its own PRNG is not used for rows). */
const vocabulary = () => (shared ??= corpus(SEED)).words

/**
 * Zipf-like word index, as the catalogue generator picks them: with 15 words a row, words around
 * index 60 are in about 1% of the rows.
 */
const pickWord = (next: () => number, words: string[]) => words[Math.floor(Math.pow(next(), 3) * words.length)]!

function words(next: () => number, vocab: string[], n: number): string {
  let s = pickWord(next, vocab)
  for (let i = 1; i < n; i++) s += ' ' + pickWord(next, vocab)
  return s
}

const pad2 = (n: number) => (n < 10 ? '0' + n : String(n))

/** Records `from` .. `from + count - 1`; the same arguments give the same records. */
export function dsBatch(from: number, count: number): DsRecord[] {
  const next = rng(SEED * 1_000_003 + from)
  const vocab = vocabulary()
  const out: DsRecord[] = new Array(count)
  for (let k = 0; k < count; k++) {
    const i = from + k
    const day = new Date(BASE_DAY + Math.floor(next() * 3650) * DAY_MS).toISOString().slice(0, 10)
    const secs = Math.floor(next() * 86_400)
    out[k] = {
      id: i + 1,
      amount: Math.round(next() * 1e7) / 1e3,
      price: Math.round(next() * 1e6) / 100,
      title: words(next, vocab, 3),
      code: LETTERS[Math.floor(next() * 24)]! + LETTERS[Math.floor(next() * 24)]! + '-' + String(Math.floor(next() * 10000)).padStart(4, '0'),
      active: next() < 0.5,
      day,
      seen: `${day}T${pad2(Math.floor(secs / 3600))}:${pad2(Math.floor(secs / 60) % 60)}:${pad2(secs % 60)}`,
      category: Math.floor(next() * CATEGORIES),
      note: words(next, vocab, 12),
    }
  }
  return out
}

/**
 * Words whose share of rows (title or note) is nearest `target`, from a sample of the first
 * `sample` rows: `q` terms of a known, moderate frequency.
 */
export function wordsNear(target: number, count: number, sample = 20_000): { word: string; share: number }[] {
  const rows = dsBatch(0, sample)
  const df = new Map<string, number>()
  for (const r of rows) {
    const seen = new Set(`${r.title as string} ${r.note as string}`.split(' '))
    for (const w of seen) df.set(w, (df.get(w) ?? 0) + 1)
  }
  return [...df]
    .map(([word, n]) => ({ word, share: n / sample }))
    .sort((a, b) => Math.abs(a.share - target) - Math.abs(b.share - target))
    .slice(0, count)
}
