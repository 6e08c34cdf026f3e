// SQLITE_BUSY: another connection (process, isolate) holds the write lock; a refused batch committed nothing.

/** SQLITE_BUSY and friends, whichever driver threw it (the code, the message or a cause). */
export function isBusy(e: unknown): boolean {
  const err = e as { code?: string; extendedCode?: string; cause?: unknown; message?: string }
  if (/SQLITE_BUSY|database is locked/i.test(`${err?.code} ${err?.extendedCode} ${err?.message ?? e}`))
    return true
  return err?.cause ? isBusy(err.cause) : false
}

/** Runs `run`, again after a short growing pause while it fails with SQLITE_BUSY (at most `attempts` runs). */
export async function retryBusy<T>(run: () => Promise<T>, attempts = 8): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run()
    } catch (e) {
      if (!isBusy(e) || attempt >= attempts) throw e
      await new Promise((r) => setTimeout(r, 10 * attempt))
    }
  }
}
