// Browser tests' shared pieces: Debian's Chromium (or CHROMIUM_PATH), and a page checked with axe
// and for horizontal scrolling at a phone's and a desktop's width.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import type { Page } from 'playwright-core'

function findChromium(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      return execFileSync('which', [name], { encoding: 'utf8' }).trim() || undefined
    } catch {
      /* not this one */
    }
  }
  return undefined
}

export const executablePath = findChromium()
/** describe where Chromium is (always in CI, where its absence must fail), else describe.skip. */
export const runWithChromium = executablePath || process.env.CI ? describe : describe.skip

const AXE = readFileSync(join(process.cwd(), 'node_modules/axe-core/axe.min.js'), 'utf8')
const WIDTHS = [390, 1280]

/** The serious and critical axe violations of the page as it is. */
async function axe(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE })
  type Found = { id: string; impact: string; target: string }
  const result: Found[] = await page.evaluate(async () => {
    // @ts-expect-error injected above
    const r = await window.axe.run(document, { resultTypes: ['violations'] })
    return r.violations.map((v: { id: string; impact: string; nodes: { target: string[] }[] }) => ({ id: v.id, impact: v.impact, target: v.nodes[0]?.target.join(' ') }))
  })
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} ${v.impact} at ${v.target}`)
}

/** The page as it is, at each width: axe clean, no horizontal scrolling. */
export async function clean(page: Page, what: string) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 })
    expect([what, width, await axe(page)]).toEqual([what, width, []])
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    expect([what, width, overflow]).toEqual([what, width, 0])
  }
}
