// Enforces STYLE.md §2 on src/: layers import downwards only, Node stays in src/runtime/, and no
// runtime import cycles; then proves on made-up file lists that each rule fires.
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  cycleViolations,
  layerViolations,
  moduleRefs,
  processUses,
  resolveSpecifier,
  runtimeViolations,
  type SourceFile,
} from './helpers/architecture'

function sourceTree(): SourceFile[] {
  const root = fileURLToPath(new URL('../', import.meta.url))
  return readdirSync(root + 'src', { recursive: true, encoding: 'utf8' })
    .filter((p) => p.endsWith('.ts'))
    .map((p) => `src/${p.replaceAll('\\', '/')}`)
    .sort()
    .map((path) => ({ path, source: readFileSync(root + path, 'utf8') }))
}

describe('architecture of src/', () => {
  const files = sourceTree()

  it('reads the whole tree', () => {
    expect(files.length).toBeGreaterThan(100)
    expect(files.some((f) => f.path === 'src/app.ts')).toBe(true)
  })

  it('keeps model, auth, datastore and search off http and actions, and lib off the rest', () => {
    const found = layerViolations(files)
    expect(found, `imports against the layering:\n${found.join('\n')}`).toEqual([])
  })

  it('keeps Node builtins, @hono/node-server and process inside src/runtime', () => {
    const found = runtimeViolations(files)
    expect(found, `Node-only code outside src/runtime:\n${found.join('\n')}`).toEqual([])
  })

  // help_show reaches the registry through ctx.actions, not by importing it: that was the last cycle.
  it('has no import cycle at runtime', () => {
    const found = cycleViolations(files)
    expect(found, `runtime import cycles:\n${found.join('\n')}`).toEqual([])
  })
})

const file = (path: string, source: string): SourceFile => ({ path, source })

describe('architecture checker', () => {
  describe('moduleRefs', () => {
    it('finds static, side-effect, re-export and dynamic references with their lines', () => {
      const src = [
        "import { a } from './a'",
        "import './side-effect'",
        "export { b } from './b'",
        "export * from './c'",
        "export * as d from './d'",
        "const e = await import('./e')",
        'import f, { g } from "./f"',
        "import * as h from './h'",
        'const i = import(`./i`)',
      ].join('\n')
      expect(moduleRefs(src)).toEqual([
        { specifier: './a', line: 1, typeOnly: false },
        { specifier: './side-effect', line: 2, typeOnly: false },
        { specifier: './b', line: 3, typeOnly: false },
        { specifier: './c', line: 4, typeOnly: false },
        { specifier: './d', line: 5, typeOnly: false },
        { specifier: './e', line: 6, typeOnly: false },
        { specifier: './f', line: 7, typeOnly: false },
        { specifier: './h', line: 8, typeOnly: false },
        { specifier: './i', line: 9, typeOnly: false },
      ])
    })

    it('tells type-only references from runtime ones', () => {
      const refs = (src: string) => moduleRefs(src).map((r) => r.typeOnly)
      expect(refs("import type { A } from './a'")).toEqual([true])
      expect(refs("import type A from './a'")).toEqual([true])
      expect(refs("import type * as A from './a'")).toEqual([true])
      expect(refs("import { type A, type B as C } from './a'")).toEqual([true])
      expect(refs("export type { A } from './a'")).toEqual([true])
      expect(refs("export { type A } from './a'")).toEqual([true])
      expect(refs("type T = typeof import('./a')")).toEqual([true])
      expect(refs("import { type A, b } from './a'")).toEqual([false])
      expect(refs("import X, { type A } from './a'")).toEqual([false])
      expect(refs("import { type } from './a'")).toEqual([false])
      expect(refs("import { type as t } from './a'")).toEqual([false])
      expect(refs("import type, { a } from './a'")).toEqual([false])
      expect(refs("export { type A, b } from './a'")).toEqual([false])
    })

    it('ignores imports inside comments, strings, templates and regular expressions', () => {
      const src = [
        "// import { a } from './a'",
        "/* export * from './b' */",
        "const s = \"import './c'\"",
        "const t = `import { d } from './d' ${x / 2} export * from './e'`",
        "const r = /import '.\\/f'/",
        "const o = { import: 1, from: './g' }",
        'x.import(y)',
        'const u = import.meta.url',
        "export { h }",
      ].join('\n')
      expect(moduleRefs(src)).toEqual([])
    })

    it('reads code inside template substitutions as code', () => {
      expect(moduleRefs("const t = `${await import('./a')}`")).toEqual([
        { specifier: './a', line: 1, typeOnly: false },
      ])
    })
  })

  describe('resolveSpecifier', () => {
    const paths = new Set(['src/a.ts', 'src/b/index.ts', 'src/c.ts', 'src/model/x.ts'])
    it('resolves with or without .ts, to /index.ts, and .js as .ts', () => {
      expect(resolveSpecifier('src/model/x.ts', '../a', paths)).toBe('src/a.ts')
      expect(resolveSpecifier('src/model/x.ts', '../a.ts', paths)).toBe('src/a.ts')
      expect(resolveSpecifier('src/model/x.ts', '../b', paths)).toBe('src/b/index.ts')
      expect(resolveSpecifier('src/model/x.ts', '../c.js', paths)).toBe('src/c.ts')
      expect(resolveSpecifier('src/a.ts', './model/x', paths)).toBe('src/model/x.ts')
    })

    it('keeps an unknown relative path normalised and leaves packages alone', () => {
      expect(resolveSpecifier('src/model/x.ts', '../http', paths)).toBe('src/http')
      expect(resolveSpecifier('src/model/x.ts', 'hono', paths)).toBeUndefined()
      expect(resolveSpecifier('src/model/x.ts', 'node:fs', paths)).toBeUndefined()
    })
  })

  describe('layer rule', () => {
    it('fires when model imports http', () => {
      const files = [
        file('src/model/package.ts', "import { markImmutable } from '../http/envelope'\n"),
        file('src/http/envelope.ts', 'export const markImmutable = 1\n'),
      ]
      expect(layerViolations(files)).toEqual([
        "src/model/package.ts:1 imports src/http/envelope.ts ('../http/envelope')",
      ])
    })

    it('fires when auth imports actions, also for a type-only import and the folder index', () => {
      const files = [
        file(
          'src/auth/rules.ts',
          [
            '// rules',
            "import type { DataDict } from '../actions/action'",
            "import { registry } from '../actions'",
          ].join('\n'),
        ),
        file('src/actions/action.ts', 'export type DataDict = {}\n'),
        file('src/actions/index.ts', 'export const registry = 1\n'),
      ]
      expect(layerViolations(files)).toEqual([
        "src/auth/rules.ts:2 imports src/actions/action.ts ('../actions/action')",
        "src/auth/rules.ts:3 imports src/actions/index.ts ('../actions')",
      ])
    })

    it('fires for datastore and search, and lets the upper layers import anything', () => {
      const files = [
        file('src/datastore/dump.ts', "export { x } from '../http/byte-sink'\n"),
        file('src/search/service.ts', "const a = import('../actions/invoke')\n"),
        file('src/http/route.ts', "import { invoke } from '../actions/invoke'\n"),
        file('src/actions/invoke.ts', "import { ok } from '../http/envelope'\n"),
        file('src/model/ok.ts', "import { x } from '../lib/json'\nexport * from '../search/x'\n"),
      ]
      expect(layerViolations(files)).toEqual([
        "src/datastore/dump.ts:1 imports src/http/byte-sink ('../http/byte-sink')",
        "src/search/service.ts:1 imports src/actions/invoke.ts ('../actions/invoke')",
      ])
    })

    it('keeps src/lib free of the rest of src/', () => {
      const files = [
        file('src/lib/json.ts', "import { x } from './py-repr'\nimport { z } from 'zod'\n"),
        file('src/lib/py-repr.ts', "import { BadRequest } from '../errors'\n"),
      ]
      expect(layerViolations(files)).toEqual([
        "src/lib/py-repr.ts:1 imports src/errors ('../errors')",
      ])
    })
  })

  describe('runtime rule', () => {
    it('fires when datastore imports node:fs', () => {
      const files = [file('src/datastore/store.ts', "import { readFileSync } from 'node:fs'\n")]
      expect(runtimeViolations(files)).toEqual(["src/datastore/store.ts:1 imports 'node:fs'"])
    })

    it('fires for bare builtins, subpaths and @hono/node-server', () => {
      const files = [
        file(
          'src/model/x.ts',
          [
            "import fs from 'fs'",
            "import { join } from 'path'",
            "import { readFile } from 'fs/promises'",
            "import { randomUUID } from 'crypto'",
            "import { serve } from '@hono/node-server'",
            "import { z } from 'zod'",
          ].join('\n'),
        ),
      ]
      expect(runtimeViolations(files)).toEqual([
        "src/model/x.ts:1 imports 'fs'",
        "src/model/x.ts:2 imports 'path'",
        "src/model/x.ts:3 imports 'fs/promises'",
        "src/model/x.ts:4 imports 'crypto'",
        "src/model/x.ts:5 imports '@hono/node-server'",
      ])
    })

    it('fires on a process.env read outside src/runtime', () => {
      const files = [file('src/config/load.ts', "// config\nconst url = process.env.URL ?? ''\n")]
      expect(runtimeViolations(files)).toEqual(['src/config/load.ts:2 uses process'])
    })

    it('allows all of it inside src/runtime', () => {
      const files = [
        file(
          'src/runtime/node.ts',
          "import { serve } from '@hono/node-server'\nimport fs from 'node:fs'\nprocess.exit(0)\n",
        ),
      ]
      expect(runtimeViolations(files)).toEqual([])
    })

    it('sees process used as code, and not in comments, strings or as a property', () => {
      expect(processUses('process.exit(1)')).toEqual([1])
      expect(processUses("if (typeof process !== 'undefined') x()")).toEqual([1])
      expect(processUses('const { env } = process')).toEqual([1])
      expect(processUses("const a = process?.env\nconst b = process['env']")).toEqual([1, 2])
      expect(processUses('globalThis.process.env.X')).toEqual([1])
      expect(processUses('const t = `${process.env.X}`')).toEqual([1])
      const quiet = [
        '// process.env.SECRET is read by the runtime',
        '/* every process.env\n   access lives in runtime */',
        "const s = 'process.env.X'",
        'const h = `caches of this process. process.env too`',
        'job.process(x)',
        'const o = { process: 1 }',
        'interface Step { process: string }',
        'const r = /process\\.env/',
      ].join('\n')
      expect(processUses(quiet)).toEqual([])
      expect(runtimeViolations([file('src/model/cache.ts', quiet)])).toEqual([])
    })
  })

  describe('cycle rule', () => {
    it('fires on a runtime cycle a → b → a', () => {
      const files = [
        file('src/b.ts', "import { a } from './a'\nexport const b = 1\n"),
        file('src/a.ts', "import { b } from './b.ts'\nexport const a = 1\n"),
      ]
      expect(cycleViolations(files)).toEqual(['src/a.ts → src/b.ts → src/a.ts'])
    })

    it('fires on a 3-cycle, through folder indexes and re-exports', () => {
      const files = [
        file('src/actions/index.ts', "export * from './site'\n"),
        file('src/actions/site/index.ts', "export { helpShow } from './help_show'\n"),
        file('src/actions/site/help_show.ts', "import { registry } from '..'\n"),
      ]
      const chain = [
        'src/actions/index.ts',
        'src/actions/site/index.ts',
        'src/actions/site/help_show.ts',
        'src/actions/index.ts',
      ]
      expect(cycleViolations(files)).toEqual([chain.join(' → ')])
    })

    it('fires on a cycle through a dynamic import and a side-effect import', () => {
      const files = [
        file('src/a.ts', "const b = () => import('./b')\n"),
        file('src/b.ts', "import './a'\n"),
      ]
      expect(cycleViolations(files)).toEqual(['src/a.ts → src/b.ts → src/a.ts'])
    })

    it('does not fire on a cycle closed only by type-only imports', () => {
      const files = [
        file('src/a.ts', "import type { B } from './b'\nexport const a = 1\n"),
        file('src/b.ts', "import { a } from './a'\nexport type B = typeof a\n"),
        file('src/c.ts', "import { type D } from './d'\nexport { type C } from './d'\n"),
        file('src/d.ts', "import { c } from './c'\n"),
      ]
      expect(cycleViolations(files)).toEqual([])
    })

    it('reports each cycle of a tangle once, as a readable chain', () => {
      const files = [
        file('src/a.ts', "import './b'\nimport './c'\n"),
        file('src/b.ts', "import './a'\n"),
        file('src/c.ts', "import './a'\n"),
        file('src/d.ts', "import './a'\n"),
      ]
      expect(cycleViolations(files)).toEqual([
        'src/a.ts → src/b.ts → src/a.ts',
        'src/a.ts → src/c.ts → src/a.ts',
      ])
    })
  })
})
