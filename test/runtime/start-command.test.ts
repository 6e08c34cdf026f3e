// The benchmark and the entry test start the server from package.json's start script: its parse.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { startCommand } from '../../scripts/start-command'

const startScript = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start

describe('startCommand', () => {
  it('builds first, then runs the bundle', () => {
    expect(startScript).toMatch(/^node scripts\/build\.mjs && /)
  })

  it('returns the last command: environment words, node flags, the bundle', () => {
    const { env, args } = startCommand()
    const last = startScript.split('&&').pop()!.trim()
    // rebuilt from the parse, the command is the script's own text
    const rebuilt = [...Object.entries(env).map(([k, v]) => `${k}=${v}`), 'node', ...args].join(' ')
    expect(rebuilt).toBe(last)
    expect(args.at(-1)).toBe('dist/runtime/node.mjs')
  })

  it('keeps the memory settings the README documents', () => {
    const { env, args } = startCommand()
    expect(env).toEqual({ MALLOC_MMAP_THRESHOLD_: '131072' })
    expect(args).toEqual(['--expose-gc', '--max-semi-space-size=2', '--heap-growing-percent=50', 'dist/runtime/node.mjs'])
  })

  it('puts another bundle in place of the default one', () => {
    expect(startCommand('/tmp/x/node.mjs').args.at(-1)).toBe('/tmp/x/node.mjs')
  })
})
