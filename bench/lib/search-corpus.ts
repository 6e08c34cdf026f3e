// Dataset dicts shaped like package_show output, generated in memory for search benchmarks.
import { corpus, dataset } from './generate'

export function searchDicts(n: number, orgCount = 200, seed = 7): Record<string, unknown>[] {
  const c = corpus(seed)
  const orgs = Array.from({ length: orgCount }, (_, i) => `org-${i}`)
  const base = Date.UTC(2020, 0, 1)
  const out: Record<string, unknown>[] = []
  for (let i = 0; i < n; i++) {
    const d = dataset(c, i, orgs)
    const created = new Date(base + i * 60_000).toISOString().slice(0, 23) + '123'
    out.push({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      name: d.name,
      title: d.title,
      notes: d.notes,
      license_id: d.license_id,
      owner_org: d.owner_org,
      organization: { name: d.owner_org, title: d.owner_org },
      private: false,
      state: 'active',
      type: 'dataset',
      metadata_created: created,
      metadata_modified: created,
      num_resources: d.resources.length,
      num_tags: d.tags.length,
      tags: d.tags.map((t) => ({ name: t.name, vocabulary_id: null })),
      groups: [],
      extras: d.extras,
      resources: d.resources,
    })
  }
  return out
}
