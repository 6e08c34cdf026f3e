// Temp directories a test file makes for its databases and uploads, removed when the file ends, and
// what must stop before that (a search service's idle snapshot timer)
// (test/helpers/no-server-errors.ts, the setup file of every test file).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []
const stops: (() => void)[] = []

/** `stop` runs when the test file ends, before its temp directories go (idle timers and the like). */
export function atFileEnd(stop: () => void) {
  stops.push(stop)
}

/** A new directory under the system's temp directory, removed after the test file. */
export function tempDir(prefix = 'ckan-edge-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

export function removeTempDirs() {
  for (const stop of stops.splice(0)) stop()
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}
