// Deterministic generator of realistic datasets (titles, notes, tags, resources) for benchmarks.

/** mulberry32: a small seeded PRNG so runs are comparable. */
export function rng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const SYLLABLES = ['an', 'bar', 'cor', 'dat', 'el', 'fin', 'gro', 'hal', 'in', 'jor', 'kel', 'lum', 'mar', 'nor', 'ost', 'pra', 'quin', 'ros', 'sel', 'tur', 'ul', 'ver', 'wen', 'xan', 'yor', 'zel']
const COMMON = ['data', 'survey', 'annual', 'report', 'statistics', 'population', 'health', 'transport', 'budget', 'energy', 'water', 'education', 'census', 'regional', 'monthly', 'quality', 'environment', 'traffic', 'spending', 'housing']
const FORMATS = ['CSV', 'JSON', 'XLSX', 'PDF', 'XML', 'GeoJSON', 'ZIP', 'HTML']
const LICENSES = ['cc-by', 'cc-by-sa', 'odc-odbl', 'cc-zero', 'other-open', 'notspecified']

export interface Corpus {
  words: string[]
  tags: string[]
  next: () => number
}

export function corpus(seed = 42, vocabulary = 20000, tagCount = 2000): Corpus {
  const next = rng(seed)
  const word = () => {
    const n = 2 + Math.floor(next() * 3)
    let w = ''
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(next() * SYLLABLES.length)]
    return w
  }
  const words = [...COMMON]
  while (words.length < vocabulary) words.push(word())
  const tags: string[] = []
  const seen = new Set<string>()
  while (tags.length < tagCount) {
    const t = words[Math.floor(next() * words.length)]! + (next() < 0.3 ? '-' + words[Math.floor(next() * 200)] : '')
    if (!seen.has(t) && t.length <= 100) {
      seen.add(t)
      tags.push(t)
    }
  }
  return { words, tags, next }
}

/** Zipf-ish pick: low indexes are much more frequent. */
const zipf = (c: Corpus, n: number) => Math.floor(Math.pow(c.next(), 3) * n)

export function sentence(c: Corpus, words: number): string {
  const out: string[] = []
  for (let i = 0; i < words; i++) out.push(c.words[zipf(c, c.words.length)]!)
  return out.join(' ')
}

export interface GeneratedDataset {
  name: string
  title: string
  notes: string
  license_id: string
  owner_org?: string
  tags: { name: string }[]
  extras: { key: string; value: string }[]
  resources: { name: string; url: string; format: string; description: string }[]
}

export function dataset(c: Corpus, i: number, orgs: string[] = []): GeneratedDataset {
  const titleWords = 3 + Math.floor(c.next() * 5)
  const title = sentence(c, titleWords).replace(/^./, (ch) => ch.toUpperCase())
  const tagN = 1 + Math.floor(c.next() * 8)
  const tagSet = new Set<string>()
  while (tagSet.size < tagN) tagSet.add(c.tags[zipf(c, c.tags.length)]!)
  const resN = 1 + Math.floor(c.next() * 5)
  const name = `ds-${i}-${Math.floor(c.next() * 1e9).toString(36)}`
  return {
    name,
    title,
    notes: sentence(c, 50 + Math.floor(c.next() * 150)),
    license_id: LICENSES[Math.floor(c.next() * LICENSES.length)]!,
    ...(orgs.length ? { owner_org: orgs[Math.floor(c.next() * orgs.length)]! } : {}),
    tags: [...tagSet].map((t) => ({ name: t })),
    extras: [
      { key: 'source', value: sentence(c, 2) },
      { key: 'frequency', value: ['daily', 'monthly', 'annual'][Math.floor(c.next() * 3)]! },
    ],
    resources: Array.from({ length: resN }, (_, r) => {
      const format = FORMATS[Math.floor(c.next() * FORMATS.length)]!
      return {
        name: `${sentence(c, 2)} ${r + 1}`,
        url: `http://example.com/${name}/file-${r}.${format.toLowerCase()}`,
        format,
        description: sentence(c, 8),
      }
    }),
  }
}

/**
 * A richer dataset for the scale benchmark (issue 17): notes of 50–500 words, 5–30 tags, 1–10
 * resources, 3–6 extras, an organization, and one to three groups for about a third of them.
 */
export function scaleDataset(c: Corpus, i: number, orgs: string[], groups: string[] = []): GeneratedDataset & { groups?: { name: string }[] } {
  const title = sentence(c, 3 + Math.floor(c.next() * 6)).replace(/^./, (ch) => ch.toUpperCase())
  const tagN = 5 + Math.floor(c.next() * 26)
  const tagSet = new Set<string>()
  while (tagSet.size < tagN) tagSet.add(c.tags[zipf(c, c.tags.length)]!)
  const resN = 1 + Math.floor(c.next() * 10)
  const name = `ds-${i}-${Math.floor(c.next() * 1e9).toString(36)}`
  const extras = [
    { key: 'source', value: sentence(c, 2 + Math.floor(c.next() * 4)) },
    { key: 'frequency', value: ['daily', 'weekly', 'monthly', 'quarterly', 'annual'][Math.floor(c.next() * 5)]! },
    { key: 'spatial_text', value: `${sentence(c, 1)} region` },
  ]
  const more = Math.floor(c.next() * 4)
  for (let e = 0; e < more; e++) extras.push({ key: `custom_${e}`, value: sentence(c, 1 + Math.floor(c.next() * 6)) })
  const groupN = groups.length && c.next() < 0.35 ? 1 + Math.floor(c.next() * 3) : 0
  const groupSet = new Set<string>()
  while (groupSet.size < groupN) groupSet.add(groups[Math.floor(c.next() * groups.length)]!)
  return {
    name,
    title,
    notes: sentence(c, 50 + Math.floor(c.next() * 451)),
    license_id: LICENSES[Math.floor(c.next() * LICENSES.length)]!,
    ...(orgs.length ? { owner_org: orgs[Math.floor(c.next() * orgs.length)]! } : {}),
    tags: [...tagSet].map((t) => ({ name: t })),
    extras,
    ...(groupN ? { groups: [...groupSet].map((g) => ({ name: g })) } : {}),
    resources: Array.from({ length: resN }, (_, r) => {
      const format = FORMATS[Math.floor(c.next() * FORMATS.length)]!
      return {
        name: `${sentence(c, 2)} ${r + 1}`,
        url: `http://example.com/${name}/file-${r}.${format.toLowerCase()}`,
        format,
        description: sentence(c, 5 + Math.floor(c.next() * 20)),
      }
    }),
  }
}
