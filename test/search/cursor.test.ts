// Issue 19: package_search cursors: next_cursor pages through every match exactly once, deep and
// while datasets are written between pages (sorted by a field), and refuses a foreign cursor.
import { beforeAll, describe, expect, it } from 'vitest'
import { setup, type TestEnv } from '../helpers/setup'

let t: TestEnv
let sys: { apikey: string }
let org: any

beforeAll(async () => {
  t = await setup()
  sys = await t.make.sysadmin()
  org = await t.make.organization(sys)
  for (let i = 0; i < 120; i++) await t.ok('package_create', { name: `cur-${String(i).padStart(3, '0')}`, title: `Cursor ${i % 10}`, owner_org: org.id, notes: i % 2 ? 'odd river' : 'even river' }, sys)
})

async function walk(params: Record<string, unknown>, between?: (page: number) => Promise<void>) {
  const names: string[] = []
  let cursor: string | undefined
  for (let page = 0; page < 100; page++) {
    const r = await t.ok('package_search', { rows: 25, ...params, cursor: cursor ?? '*' })
    names.push(...r.results.map((d: any) => d.name))
    if (!r.next_cursor) break
    cursor = r.next_cursor
    if (between) await between(page)
  }
  return names
}

describe('package_search cursors', () => {
  it('pages by name: every dataset once, in order, past start/rows', async () => {
    const names = await walk({ sort: 'name asc' })
    expect(names).toHaveLength(120)
    expect(names).toEqual([...names].sort())
    // ties (the same title) are settled by id, so no dataset is skipped or repeated
    const byTitle = await walk({ sort: 'title_string asc', q: 'river' })
    expect(new Set(byTitle).size).toBe(120)
  })

  it('holds while datasets are created and deleted between pages', async () => {
    const seenBefore = new Set((await walk({ sort: 'name asc' })))
    let made = 0
    const names = await walk({ sort: 'name asc' }, async (page) => {
      if (page === 1) {
        await t.ok('package_create', { name: 'cur-000a', owner_org: org.id }, sys) // behind the reader
        await t.ok('package_create', { name: 'cur-zzz', owner_org: org.id }, sys) // ahead of it
        await t.ok('package_delete', { id: 'cur-119' }, sys) // ahead: gone before it is read
        made++
      }
    })
    expect(new Set(names).size).toBe(names.length)
    expect(names).toContain('cur-zzz')
    expect(names).not.toContain('cur-000a')
    expect(names).not.toContain('cur-119')
    for (const n of seenBefore) if (n !== 'cur-119') expect(names).toContain(n)
    expect(made).toBe(1)
  })

  it('follows a relevance order too, and refuses a cursor of another sort or a forged one', async () => {
    const ranked = await walk({ q: 'odd' })
    expect(new Set(ranked).size).toBe(ranked.length)
    const first = await t.ok('package_search', { rows: 5, sort: 'name asc', cursor: '*' })
    const other = await t.call('package_search', { rows: 5, sort: 'name desc', cursor: first.next_cursor })
    expect(other.status).toBe(409)
    expect(other.body.error.cursor[0]).toMatch(/another sort/)
    const forged = await t.call('package_search', { cursor: 'bm90LWEtY3Vyc29y' })
    expect(forged.status).toBe(409)
    // the last page has no next_cursor
    const tail = await t.ok('package_search', { rows: 1000, sort: 'name asc', cursor: '*' })
    expect(tail.next_cursor).toBeUndefined()
    // without a cursor the answer keeps CKAN's shape
    expect((await t.ok('package_search', { rows: 5 })).next_cursor).toBeUndefined()
  })
})
