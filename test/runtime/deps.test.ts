// The composition root: every port reaches actions through Deps, wired to the real backends of a Node process.
import { join } from 'node:path'
import { z } from 'zod'
import { eq } from 'drizzle-orm'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Deps } from '../../src/context'
import { changeLog, users } from '../../src/db/schema'
import { loadConfig } from '../../src/config/load'
import { defineJobKind, JobKinds } from '../../src/jobs/job-kinds'
import { runOnce } from '../../src/jobs/runner'
import { changeRow } from '../../src/model/changes'
import { buildDeps } from '../../src/runtime/deps'
import { openCatalogDb, WAL_LIMIT_BYTES } from '../../src/runtime/node-db'
import { BlobStoreNotConfigured } from '../../src/storage/blob-store'
import { MailerNotConfigured } from '../../src/notify/mailer'
import { setup, type TestEnv } from '../helpers/setup'
import { tempDir } from '../helpers/temp-dirs'

/** A kind whose handler uses the catalogue through the Deps it is given. */
const kinds = new JobKinds<Deps>([
  defineJobKind({
    kind: 'count_users',
    payload: z.object({ name: z.string() }),
    title: (p) => `Count users named ${p.name}`,
    async run(deps: Deps, p) {
      const rows = await deps.db.select().from(users).where(eq(users.name, p.name))
      return { count: rows.length }
    },
  }),
])

const streamOf = (text: string) => new Blob([text]).stream() as ReadableStream<Uint8Array>

describe('buildDeps', () => {
  let t: TestEnv
  beforeAll(async () => {
    t = await setup({}, { jobKinds: kinds })
  })

  it('enqueues a job in the same write batch as the change that causes it', async () => {
    const { id, statement } = t.deps.jobs.enqueueStatement({
      kind: 'count_users',
      payload: { name: 'test.ckan.net' },
    })
    await t.deps.writer.write([t.deps.db.insert(changeLog).values(changeRow('package', 'p1')), statement])
    const job = await t.deps.jobs.show(id)
    expect(job).toMatchObject({ id, status: 'queued', kind: 'count_users', title: 'Count users named test.ckan.net' })
  })

  it('leaves no job behind when the batch fails', async () => {
    const before = (await t.deps.jobs.list()).length
    const { id, statement } = t.deps.jobs.enqueueStatement({ kind: 'count_users', payload: { name: 'x' } })
    const clash = t.deps.db.insert(users).values({ id: 'dup', name: 'dup-user', created: t.deps.now() })
    await t.deps.writer.write([clash])
    // The job comes first in the batch; the repeated user id fails the whole batch.
    await expect(t.deps.writer.write([statement, clash])).rejects.toThrow()
    expect(await t.deps.jobs.show(id)).toBeUndefined()
    expect((await t.deps.jobs.list()).length).toBe(before)
  })

  it('runs a job with the whole Deps, so handlers reach the catalogue', async () => {
    const job = await t.deps.jobs.enqueue({ kind: 'count_users', payload: { name: 'dup-user' } })
    let outcome = await runOnce(t.deps.jobs, kinds, t.deps)
    // earlier tests may have left jobs queued before this one: run until ours is done
    while (outcome.status === 'finished' && outcome.job.id !== job.id)
      outcome = await runOnce(t.deps.jobs, kinds, t.deps)
    expect(outcome).toMatchObject({ status: 'finished', result: { count: 1 } })
    expect(await t.deps.jobs.show(job.id)).toMatchObject({ status: 'finished', result: { count: 1 } })
  })

  it('refuses kinds that are not registered', async () => {
    expect(() => t.deps.jobs.enqueueStatement({ kind: 'no_such_kind' })).toThrow(/Unknown job kind/)
  })

  it('stores uploads beside the test database through deps.blobs', async () => {
    const put = await t.deps.blobs.put('resources/r1/data.csv', streamOf('a,b\n1,2\n'), {
      contentType: 'text/csv',
    })
    expect(put.size).toBe(8)
    const got = await t.deps.blobs.get('resources/r1/data.csv', { offset: 4 })
    expect(await new Response(got!.body).text()).toBe('1,2\n')
    expect(got!.contentType).toBe('text/csv')
  })

  it('says mail is not configured when smtp.server is unset', async () => {
    await expect(t.deps.mailer.send({ to: 'a@example.com', subject: 's', body: 'b' })).rejects.toThrow(
      'Mail server is not configured (smtp.server)',
    )
  })
})

describe('buildDeps without the optional ports', () => {
  it('answers "not configured" for files and mail, and accepts only the app\'s job kinds', async () => {
    const dir = tempDir('ckan-edge-deps-')
    const { db } = await openCatalogDb(`file:${join(dir, 'c.db')}`)
    const deps = buildDeps(loadConfig({}), db)
    await expect(deps.blobs.head('resources/x/y')).rejects.toBeInstanceOf(BlobStoreNotConfigured)
    await expect(deps.mailer.send({ to: 'a@example.com', subject: 's', body: 'b' })).rejects.toBeInstanceOf(
      MailerNotConfigured,
    )
    // the test kind belongs to the other describe's deps only
    expect(() => deps.jobs.enqueueStatement({ kind: 'count_users', payload: { name: 'x' } })).toThrow(
      /Unknown job kind/,
    )
    expect(deps.actions.get('help_show')?.name).toBe('help_show')
  })
})

describe('the catalogue file', () => {
  it('has its WAL cut back after checkpoints (journal_size_limit), not kept at its largest', async () => {
    const dir = tempDir('ckan-edge-deps-')
    const opened = await openCatalogDb(`file:${join(dir, 'c.db')}`)
    try {
      const rs = await opened.client.execute('PRAGMA journal_size_limit')
      expect(Number(Object.values(rs.rows[0]!)[0])).toBe(WAL_LIMIT_BYTES)
      expect(WAL_LIMIT_BYTES).toBeLessThanOrEqual(64 * 1024 * 1024)
    } finally {
      opened.close()
    }
  })
})
