// The scale bench's answer checks, shared with the Worker's scale test: two servers over the same
// catalogue give the same answers, and exact filters count what SQL counts in the database.
import type { BenchQuery } from './search-queries'

export interface SearchAnswer {
  count: number
  results: { name: string }[]
  search_facets?: Record<string, { items: { name: string; count: number }[] }>
}

/** One server's package_search (its result object). */
export interface Answerer {
  label: string
  search(body: object): Promise<SearchAnswer>
}

/** Rows from the catalogue's database. */
export type SqlRows = (sql: string, args: unknown[]) => Promise<Record<string, unknown>[]>

/**
 * (a) `a` and `b` give the same count, page and facets for the first 120 queries of the mix, paged
 * by name so that ties cannot differ; (b) exact filters (everything, organizations, the top tags,
 * resource formats) count on each what SQL counts. Returns the failures (empty when all agree).
 */
export async function answerChecks(a: Answerer, b: Answerer, rows: SqlRows, mix: BenchQuery[]) {
  const failures: string[] = []
  let checked = 0
  const count = async (sql: string, args: unknown[]) => Number((await rows(sql, args))[0]?.n ?? 0)
  const facets = (r: SearchAnswer) =>
    Object.fromEntries(
      Object.entries(r.search_facets ?? {}).map(([k, f]) => [k, [...f.items].sort((x, y) => (x.name < y.name ? -1 : 1))]),
    )
  const key = (r: SearchAnswer) => JSON.stringify([r.count, r.results.map((x) => x.name), facets(r)])
  for (const q of mix.slice(0, 120)) {
    const body = { ...q.body, sort: 'name asc', rows: 20 }
    const [x, y] = await Promise.all([a.search(body), b.search(body)])
    checked++
    if (key(x) !== key(y)) failures.push(`${JSON.stringify(q.body)}: ${a.label} ${x.count}, ${b.label} ${y.count}`)
  }
  const visible = `p.state = 'active' AND p.private = 0`
  const cases: [object, number][] = []
  cases.push([{ q: '' }, await count(`SELECT COUNT(*) AS n FROM package p WHERE ${visible}`, [])])
  for (const i of [0, 1, 42, 250]) {
    const sql = `SELECT COUNT(*) AS n FROM package p JOIN "group" g ON g.id = p.owner_org WHERE g.name = ? AND ${visible}`
    cases.push([{ fq: `organization:org-${i}` }, await count(sql, [`org-${i}`])])
  }
  const top = await rows(
    `SELECT t.name AS name, COUNT(*) AS n FROM package_tag pt JOIN tag t ON t.id = pt.tag_id
     JOIN package p ON p.id = pt.package_id WHERE pt.state = 'active' AND ${visible}
     GROUP BY t.name ORDER BY n DESC, t.name LIMIT 3`,
    [],
  )
  for (const t of top) cases.push([{ fq: `tags:"${String(t.name)}"` }, Number(t.n)])
  for (const f of ['CSV', 'GeoJSON']) {
    const sql = `SELECT COUNT(DISTINCT p.id) AS n FROM package p JOIN resource r ON r.package_id = p.id
       WHERE r.state = 'active' AND r.format = ? AND ${visible}`
    cases.push([{ fq: `res_format:${f}` }, await count(sql, [f])])
  }
  for (const [body, want] of cases) {
    for (const s of [a, b]) {
      const got = (await s.search({ ...body, rows: 0 })).count
      checked++
      if (got !== want) failures.push(`${JSON.stringify(body)} on ${s.label}: ${got}, SQL ${want}`)
    }
  }
  return { checked, failures }
}
