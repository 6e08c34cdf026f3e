// The `ckan_changes` source type: another instance of this catalogue followed through its change
// feed (changes_list): a first run lists every public dataset and keeps the feed's cursor, later
// runs read only the datasets the feed says changed, and drop those deleted or made private.
import { HarvestError, type GatherContext, type Harvester } from '../types'
import { callRemote, ckanToDataset, filterTerms, gathered, searchAll, siteRoot, validateCkanConfig } from './ckan'

/** The most changes one changes_list call scans (the feed's own ceiling; service.harvest.page_size below it). */
const FEED_PAGE = 1000
/** Changes that take a dataset out of what the remote shows everyone. */
const GONE = new Set(['deleted', 'purged', 'made_private'])

interface Change {
  id: string
  change: string
}
type Page = { changes: Change[]; next: string }

async function feedPage(ctx: GatherContext, since: string | undefined): Promise<Page> {
  const params: Record<string, string | number> = { limit: Math.min(ctx.pageSize, FEED_PAGE), types: 'dataset' }
  if (since) params.since = since
  const result = (await callRemote(ctx.fetch, ctx.source, ctx.config, 'changes_list', params)) as Partial<Page> | null
  if (!result || !Array.isArray(result.changes) || typeof result.next !== 'string')
    throw new HarvestError(`The remote changes_list answer has no changes and next cursor (${siteRoot(ctx.source.url)})`)
  return result as Page
}

/**
 * Reads the feed from `since` to its end: the datasets it names with their last change, and the
 * cursor after it. `tooOld`: the remote refused the cursor (past its retention, or not its own).
 */
async function readFeed(
  ctx: GatherContext,
  since: string | undefined,
): Promise<{ last: Map<string, string>; next: string } | { tooOld: string }> {
  const last = new Map<string, string>()
  let cursor = since
  for (;;) {
    let page: Page
    try {
      page = await feedPage(ctx, cursor)
    } catch (e) {
      // changes_list refuses a cursor it no longer keeps as a Validation Error on `since`
      const r = e instanceof HarvestError ? e.response : undefined
      if (cursor && r && r.status === 409 && /"since"/.test(r.body)) return { tooOld: (e as Error).message }
      throw e
    }
    for (const c of page.changes) if (c && typeof c.id === 'string') last.set(c.id, String(c.change))
    if (page.next === cursor) break
    cursor = page.next
  }
  return { last, next: cursor ?? '' }
}

/** Lists every public dataset of the remote (the filters applied) and marks the listing complete. */
async function* fullListing(ctx: GatherContext, filters: string[]) {
  let n = 0
  for await (const d of searchAll(ctx, filters)) {
    if (d.private === true) continue
    n++
    yield gathered(d)
  }
  if (!n) ctx.error(`No datasets found at CKAN: ${siteRoot(ctx.source.url)}`)
  else ctx.fullListing()
}

export const ckanChangesHarvester: Harvester = {
  info: {
    name: 'ckan_changes',
    title: 'CKAN (change feed)',
    description: "Harvests another instance of this catalogue by following its change feed (changes_list)",
    form_config_interface: 'Text',
  },
  validateConfig: validateCkanConfig,

  async *gather(ctx) {
    const filters = filterTerms(ctx.config)
    const cursor = ctx.previous?.cursor
    if (cursor) {
      const feed = await readFeed(ctx, cursor)
      if ('tooOld' in feed) {
        ctx.log('WARNING', `The remote refused the change feed cursor of the last run (${feed.tooOld}); listing every dataset again`)
      } else {
        const touched: string[] = []
        for (const [id, change] of feed.last) {
          if (GONE.has(change)) ctx.deleted(id)
          else touched.push(id)
        }
        // the changed datasets as the remote shows them to everyone now: one not found is gone
        // (deleted, made private since, or outside the filters)
        for (let i = 0; i < touched.length; i += ctx.pageSize) {
          const batch = touched.slice(i, i + ctx.pageSize)
          const found = new Set<string>()
          const ids = `+id:(${batch.map((id) => `"${id.replace(/["\\]/g, '\\$&')}"`).join(' OR ')})`
          for await (const d of searchAll(ctx, [...filters, ids])) {
            if (d.private === true || !batch.includes(String(d.id))) continue
            found.add(String(d.id))
            yield gathered(d)
          }
          for (const id of batch) if (!found.has(id)) ctx.deleted(id)
        }
        ctx.log('INFO', `The change feed named ${feed.last.size} datasets since the last run (${touched.length} to read)`)
        ctx.setCursor(feed.next)
        return
      }
    }
    // the feed's position before the listing: what changes while it is read is read again next time
    const head = await readFeed(ctx, undefined)
    if ('tooOld' in head) throw new HarvestError(head.tooOld)
    yield* fullListing(ctx, filters)
    ctx.setCursor(head.next)
  },

  toDataset: ckanToDataset,
  originalUrl: (source, guid) => `${siteRoot(source.url)}/dataset/${guid}`,
}
