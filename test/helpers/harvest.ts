// Harvesting in tests: a source's run from harvest_job_create to its end, with the app's job kinds.
import { drain } from '../../src/jobs/runner'
import { jobKinds } from '../../src/jobs/kinds'
import type { Caller, TestEnv } from './setup'

/** Creates a job for `source` (id or name), runs every queued job, and returns harvest_job_show. */
export async function runHarvest(t: TestEnv, source: string, as: Caller) {
  const job = await t.ok('harvest_job_create', { source_id: source }, as)
  await drainAll(t)
  return t.ok('harvest_job_show', { id: job.id }, as)
}

/** Runs queued jobs until none is left (gather queues import). */
export async function drainAll(t: TestEnv) {
  for (let i = 0; i < 10; i++) {
    const { ran } = await drain(t.deps.jobs, jobKinds, t.deps)
    if (!ran) return
  }
}

import { afterAll, beforeAll } from 'vitest'
import { HARVESTERS } from '../../src/jobs/harvest/registry'
import type { Harvester } from '../../src/jobs/harvest/types'

/**
 * A harvester for tests of what every source type shares (actions, runs, pages): its URL answers
 * `{"datasets": [{"guid": "...", "dataset": {...}}], "next": "<url>"?}`; each dataset dict is
 * written as given. A `fail` key in a dataset dict makes its import throw that message.
 */
export const listHarvester: Harvester = {
  info: { name: 'test_list', title: 'Test list', description: 'A JSON list of dataset dicts (tests only)', form_config_interface: 'Text' },
  validateConfig(config) {
    if ('page_limit' in config && typeof config.page_limit !== 'number') throw new Error('page_limit must be a number')
  },
  async *gather(ctx) {
    let url: string | undefined = ctx.source.url
    for (let page = 0; url; page++) {
      const body = (await ctx.fetch.json(url)) as { datasets?: { guid: string; dataset: unknown }[]; next?: string }
      if (!Array.isArray(body.datasets)) throw new Error(`No datasets list at ${url}`)
      for (const d of body.datasets) yield { guid: d.guid, content: JSON.stringify(d.dataset) }
      url = body.next
    }
    ctx.fullListing()
  },
  toDataset(obj) {
    const d = JSON.parse(obj.content) as Record<string, unknown>
    if (typeof d.fail === 'string') throw new Error(d.fail)
    return { dataset: d }
  },
  originalUrl: (source, guid) => `${source.url}#${guid}`,
}

/** Registers listHarvester for the test file's duration. */
export function useListHarvester() {
  beforeAll(() => {
    if (!HARVESTERS.includes(listHarvester)) HARVESTERS.push(listHarvester)
  })
  afterAll(() => {
    const i = HARVESTERS.indexOf(listHarvester)
    if (i >= 0) HARVESTERS.splice(i, 1)
  })
}
