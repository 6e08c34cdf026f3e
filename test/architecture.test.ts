// Enforces the architecture of src/: layers import downwards only (TIERS in the helper), src/web
// stays off src/db, only src/auth/ and invoke construct NotAuthorized, Node stays in src/runtime/,
// and no runtime import cycles; then proves on made-up file lists that each rule fires.
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  cycleViolations,
  layerViolations,
  moduleRefs,
  notAuthorizedUses,
  notAuthorizedViolations,
  processUses,
  refsOf,
  resolveSpecifier,
  runtimeViolations,
  tierOf,
  webDbViolations,
  type SourceFile,
} from './helpers/architecture'

function sourceTree(): SourceFile[] {
  const root = fileURLToPath(new URL('../', import.meta.url))
  return readdirSync(root + 'src', { recursive: true, encoding: 'utf8' })
    .filter((p) => p.endsWith('.ts') || p.endsWith('.tsx'))
    .map((p) => `src/${p.replaceAll('\\', '/')}`)
    .sort()
    .map((path) => ({ path, source: readFileSync(root + path, 'utf8') }))
}

// A plain reading of the static imports and re-exports that start a line: `import … from '…'`,
// `import '…'`, `export … from '…'` (the clause may span lines), as [line, specifier].
const STATIC_REF = new RegExp(
  [
    String.raw`^(?:import\s+(?:[\w$*{},\s]+?\s+from\s*)?`,
    String.raw`|export\s+(?:type\s+)?(?:\*(?:\s+as\s+[\w$]+)?|\{[^}]*\})\s*from\s*)`,
    String.raw`(['"])([^'"\n]+)\1`,
  ].join(''),
  'gm',
)

function plainRefs(source: string): [number, string][] {
  return [...source.matchAll(STATIC_REF)].map((m) => [
    source.slice(0, m.index).split('\n').length,
    m[2]!,
  ])
}

describe('architecture of src/', () => {
  const files = sourceTree()

  it('reads the whole tree, .tsx included', () => {
    expect(files.length).toBeGreaterThan(100)
    expect(files.some((f) => f.path === 'src/app.ts')).toBe(true)
    expect(files.filter((f) => f.path.endsWith('.tsx')).length).toBeGreaterThanOrEqual(15)
    expect(files.some((f) => f.path === 'src/web/mount.tsx')).toBe(true)
  })

  it('puts every file of src/ in a tier', () => {
    expect(files.filter((f) => !tierOf(f.path)).map((f) => f.path)).toEqual([])
  })

  // the scanner against a plain regex: the same static references at the same lines, and any
  // other reference a dynamic import( on its line (JSX text, strings and comments give none)
  it('finds in every file the references a plain reading of its import lines finds', () => {
    const disagreements: string[] = []
    for (const f of files) {
      const lines = f.source.split('\n')
      const refs = refsOf(f)
      const atStart = refs.filter((r) => /^(import|export)\b/.test(lines[r.line - 1]!))
      const found = atStart.map((r) => `${r.line} ${r.specifier}`)
      const plain = plainRefs(f.source).map(([line, spec]) => `${line} ${spec}`)
      if (found.join('\n') !== plain.join('\n'))
        disagreements.push(`${f.path}: scanner [${found.join(', ')}] regex [${plain.join(', ')}]`)
      for (const r of refs)
        if (!atStart.includes(r) && !/\bimport\s*\(/.test(lines[r.line - 1]!))
          disagreements.push(`${f.path}:${r.line} '${r.specifier}': no import line, no import()`)
    }
    expect(disagreements).toEqual([])
    for (const f of files.filter((f) => f.path.endsWith('.tsx')))
      expect(refsOf(f).length, f.path).toBeGreaterThan(0)
  })

  it('imports downwards only: each tier its own and lower tiers', () => {
    const found = layerViolations(files)
    expect(found, `imports against the layering:\n${found.join('\n')}`).toEqual([])
  })

  it('keeps src/web off src/db', () => {
    const found = webDbViolations(files)
    expect(found, `src/web importing src/db:\n${found.join('\n')}`).toEqual([])
  })

  it('constructs NotAuthorized only in src/auth/ and src/actions/invoke.ts', () => {
    const found = notAuthorizedViolations(files)
    expect(found, `NotAuthorized constructed elsewhere:\n${found.join('\n')}`).toEqual([])
  })

  it('keeps Node builtins, @hono/node-server and process inside src/runtime', () => {
    const found = runtimeViolations(files)
    expect(found, `Node-only code outside src/runtime:\n${found.join('\n')}`).toEqual([])
  })

  // help_show reaches the registry through ctx.actions, not by importing it: the last cycle.
  it('has no import cycle at runtime', () => {
    const found = cycleViolations(files)
    expect(found, `runtime import cycles:\n${found.join('\n')}`).toEqual([])
  })
})

const file = (path: string, source: string): SourceFile => ({ path, source })
const lines = (...source: string[]) => source.join('\n') + '\n'
/** A file of side-effect imports, one a line. */
const imports = (path: string, ...specifiers: string[]) =>
  file(path, lines(...specifiers.map((s) => `import '${s}'`)))

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
    it('reads JSX in .tsx as markup: text, apostrophes and attributes are not code', () => {
      const src = [
        "import { Layout } from '../layout'",
        'export const Page = () => (',
        '  <Layout title="Don\'t /* stop */">',
        "    <p>Don't import anything from './x' here // or there</p>",
        "    <p class='a' data-x={{ a: 1 }} {...rest}>",
        '      import `y` from "./y"; export * from \'./z\'</p>',
        "    {/* import './c' */}",
        '    <>',
        "      {ok ? <b>it's {await import('./d')}</b>",
        "        : <i>/not a regex/ {`${import('./e')}`}</i>}",
        '    </>',
        '    <img src="a.png" />',
        '  </Layout>',
        ')',
        "const later = () => import('./f')",
        'const ratio = a / b / c',
        "export { g } from './g'",
      ].join('\n')
      expect(moduleRefs(src, { jsx: true })).toEqual([
        { specifier: '../layout', line: 1, typeOnly: false },
        { specifier: './d', line: 9, typeOnly: false },
        { specifier: './e', line: 10, typeOnly: false },
        { specifier: './f', line: 15, typeOnly: false },
        { specifier: './g', line: 17, typeOnly: false },
      ])
      const page = 'const P = () => <p>process.env is read {process.env.X}</p>'
      expect(processUses(page, { jsx: true })).toEqual([1])
    })

    it('tells JSX from comparisons and generic arrow functions in .tsx', () => {
      const src = [
        'const a = x < y && y > z',
        'const b = f<string>(1) < 2',
        'const id = <T,>(v: T) => v',
        'const first = <T extends unknown[]>(v: T) => v[0]',
        "const l = list.length < 3 ? <p>few</p> : null",
        "import('./h')",
      ].join('\n')
      expect(moduleRefs(src, { jsx: true })).toEqual([
        { specifier: './h', line: 6, typeOnly: false },
      ])
    })

    it('reads a file by its extension: JSX only in .tsx', () => {
      const src = "const p = <p>Don't</p>\nimport { a } from './a'\n"
      expect(refsOf(file('src/web/x.tsx', src))).toEqual([
        { specifier: './a', line: 2, typeOnly: false },
      ])
      // in a .ts file `<T>x` is a type assertion, not markup
      expect(refsOf(file('src/x.ts', "const v = <T>x\nimport { a } from './a'\n"))).toEqual([
        { specifier: './a', line: 2, typeOnly: false },
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

    it('resolves to .tsx and /index.tsx too', () => {
      const tsx = new Set(['src/web/layout.tsx', 'src/web/pages/index.tsx', 'src/web/x.ts'])
      expect(resolveSpecifier('src/web/x.ts', './layout', tsx)).toBe('src/web/layout.tsx')
      expect(resolveSpecifier('src/web/x.ts', './layout.js', tsx)).toBe('src/web/layout.tsx')
      expect(resolveSpecifier('src/web/x.ts', './layout.jsx', tsx)).toBe('src/web/layout.tsx')
      expect(resolveSpecifier('src/web/layout.tsx', './pages', tsx)).toBe('src/web/pages/index.tsx')
      expect(resolveSpecifier('src/web/layout.tsx', './x', tsx)).toBe('src/web/x.ts')
    })

    it('keeps an unknown relative path normalised and leaves packages alone', () => {
      expect(resolveSpecifier('src/model/x.ts', '../http', paths)).toBe('src/http')
      expect(resolveSpecifier('src/model/x.ts', 'hono', paths)).toBeUndefined()
      expect(resolveSpecifier('src/model/x.ts', 'node:fs', paths)).toBeUndefined()
    })
  })

  describe('layer rule', () => {
    const upward = (from: string, to: string, kind = 'a value import') =>
      `${from} may not import ${to}; ${kind}`

    it('fires when model imports http', () => {
      const files = [
        file('src/model/package.ts', "import { markImmutable } from '../http/envelope'\n"),
        file('src/http/envelope.ts', 'export const markImmutable = 1\n'),
      ]
      expect(layerViolations(files)).toEqual([
        "src/model/package.ts:1 imports src/http/envelope.ts ('../http/envelope'): " +
          upward('model tier (2)', 'surface tier (6)'),
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
        "src/auth/rules.ts:2 imports src/actions/action.ts ('../actions/action'): " +
          upward('auth tier (3)', 'actions tier (5)', 'a type-only import counts'),
        "src/auth/rules.ts:3 imports src/actions/index.ts ('../actions'): " +
          upward('auth tier (3)', 'actions tier (5)'),
      ])
    })

    it('fires when model imports auth, by value or by type', () => {
      const files = [
        file(
          'src/model/x.ts',
          [
            "import { canEdit } from '../auth/package'",
            "import type { Caller } from '../auth/caller'",
            "import { type Rule } from '../auth/permissions'",
          ].join('\n'),
        ),
      ]
      expect(layerViolations(files)).toEqual([
        "src/model/x.ts:1 imports src/auth/package ('../auth/package'): " +
          upward('model tier (2)', 'auth tier (3)'),
        "src/model/x.ts:2 imports src/auth/caller ('../auth/caller'): " +
          upward('model tier (2)', 'auth tier (3)', 'a type-only import counts'),
        "src/model/x.ts:3 imports src/auth/permissions ('../auth/permissions'): " +
          upward('model tier (2)', 'auth tier (3)', 'a type-only import counts'),
      ])
    })

    it('fires upwards between tiers: actions → web, auth → actions, jobs → actions', () => {
      const files = [
        file('src/actions/package/package_show.ts', "import { Layout } from '../../web/layout'\n"),
        file('src/web/layout.tsx', 'export const Layout = () => <div />\n'),
        file('src/auth/package.ts', "import { invoke } from '../actions/invoke'\n"),
        file('src/actions/invoke.ts', 'export const invoke = 1\n'),
        file('src/jobs/loader/run.ts', "export { packageShow } from '../../actions/show'\n"),
        file('src/actions/show.ts', 'export const packageShow = 1\n'),
        file('src/http/route.ts', "import { ok } from '../app'\n"),
        file('src/app.ts', 'export const ok = 1\n'),
      ]
      expect(layerViolations(files)).toEqual([
        "src/actions/package/package_show.ts:1 imports src/web/layout.tsx ('../../web/layout'): " +
          upward('actions tier (5)', 'surface tier (6)'),
        "src/auth/package.ts:1 imports src/actions/invoke.ts ('../actions/invoke'): " +
          upward('auth tier (3)', 'actions tier (5)'),
        "src/jobs/loader/run.ts:1 imports src/actions/show.ts ('../../actions/show'): " +
          upward('jobs tier (4)', 'actions tier (5)'),
        "src/http/route.ts:1 imports src/app.ts ('../app'): " +
          upward('surface tier (6)', 'runtime tier (7)'),
      ])
    })

    it('fires for datastore, search and db, from .tsx files too', () => {
      const files = [
        file('src/datastore/dump.ts', "export { x } from '../http/byte-sink'\n"),
        file('src/search/service.ts', "const a = import('../actions/invoke')\n"),
        file('src/actions/invoke.ts', 'export const invoke = 1\n'),
        imports('src/db/executor.ts', '../config/load', '../model/x'),
        file('src/web/pages/x.tsx', lines("import { m } from '../../runtime/node'", "<p>'</p>")),
      ]
      expect(layerViolations(files)).toEqual([
        "src/datastore/dump.ts:1 imports src/http/byte-sink ('../http/byte-sink'): " +
          upward('model tier (2)', 'surface tier (6)'),
        "src/search/service.ts:1 imports src/actions/invoke.ts ('../actions/invoke'): " +
          upward('model tier (2)', 'actions tier (5)'),
        "src/db/executor.ts:2 imports src/model/x ('../model/x'): " +
          upward('db tier (1)', 'model tier (2)'),
        "src/web/pages/x.tsx:1 imports src/runtime/node ('../../runtime/node'): " +
          upward('surface tier (6)', 'runtime tier (7)'),
      ])
    })

    it('lets a tier import its peers and every lower tier', () => {
      const files = [
        imports('src/runtime/node.ts', '../app', '../web/mount'),
        imports('src/app.ts', './web/mount', './http/route'),
        imports('src/web/mount.tsx', '../http/route', '../actions/invoke'),
        imports('src/http/route.ts', '../actions/invoke', '../db/executor'),
        imports('src/actions/invoke.ts', '../jobs/job-queue', '../auth/caller'),
        imports('src/jobs/job-queue.ts', '../auth/caller', '../model/x'),
        imports('src/auth/caller.ts', '../model/x', '../search/service'),
        imports('src/model/x.ts', '../search/service', '../notify/mailer'),
        imports('src/storage/blob.ts', '../db/executor', '../validation/v'),
        imports('src/db/executor.ts', '../config/load', '../errors'),
        imports('src/config/load.ts', '../lib/json', '../data-dict'),
        imports('src/errors.ts', './lib/json'),
        file('src/lib/json.ts', lines("import { p } from './py-repr'", "import { z } from 'zod'")),
      ]
      expect(layerViolations(files)).toEqual([])
    })

    it('lets all import types from src/context.ts, and context.ts the types of all tiers', () => {
      const files = [
        file('src/model/x.ts', "import type { Deps } from '../context'\n"),
        file('src/lib/y.ts', "import type { Ctx } from '../context'\n"),
        file('src/db/z.ts', "import { type Deps, type Ctx } from '../context.ts'\n"),
        file(
          'src/context.ts',
          lines("import type { Q } from './jobs/job-queue'", "import type { C } from './config'"),
        ),
      ]
      expect(layerViolations(files)).toEqual([])
    })

    it('still fires on a value import in src/context.ts from above its tier', () => {
      const files = [file('src/context.ts', "import { users } from './db/schema'\n")]
      expect(layerViolations(files)).toEqual([
        "src/context.ts:1 imports src/db/schema ('./db/schema'): " +
          upward('base tier (0)', 'db tier (1)'),
      ])
    })

    it('lets the model tier import types from src/jobs/, not values', () => {
      const typesOnly = "model tier may import only types from jobs (the job queue's port)"
      const files = [
        file(
          'src/model/x.ts',
          [
            "import type { JobQueue } from '../jobs/job-queue'",
            "import { enqueueLoad } from '../jobs/job-queue'",
          ].join('\n'),
        ),
        file('src/datastore/y.ts', "import { type JobQueue } from '../jobs/job-queue'\n"),
        file('src/validation/z.ts', "import { runJob } from '../jobs/run'\n"),
        file('src/auth/w.ts', "import type { JobQueue } from '../jobs/job-queue'\n"),
        file('src/jobs/job-queue.ts', 'export interface JobQueue {}\n'),
      ]
      expect(layerViolations(files)).toEqual([
        "src/model/x.ts:2 imports src/jobs/job-queue.ts ('../jobs/job-queue'): " + typesOnly,
        "src/validation/z.ts:1 imports src/jobs/run ('../jobs/run'): " + typesOnly,
        "src/auth/w.ts:1 imports src/jobs/job-queue.ts ('../jobs/job-queue'): " +
          upward('auth tier (3)', 'jobs tier (4)', 'a type-only import counts'),
      ])
    })

    it('keeps src/lib free of the rest of src/', () => {
      const files = [
        file('src/lib/json.ts', "import { x } from './py-repr'\nimport { z } from 'zod'\n"),
        file('src/lib/py-repr.ts', "import { BadRequest } from '../errors'\n"),
      ]
      expect(layerViolations(files)).toEqual([
        "src/lib/py-repr.ts:1 imports src/errors ('../errors'): src/lib may import only src/lib",
      ])
    })

    it('reports a file of src/ in no tier', () => {
      const files = [file('src/widgets/x.ts', "import { y } from '../model/y'\n"), file('x.ts', '')]
      expect(layerViolations(files)).toEqual(['src/widgets/x.ts is in no tier of the layer map'])
    })
  })

  describe('web-off-db rule', () => {
    it('fires when a .tsx page imports db, by value or by type', () => {
      const files = [
        file(
          'src/web/pages/x.tsx',
          [
            "import { users } from '../../db/schema'",
            "import type { CatalogDb } from '../../db/types'",
            "import { Layout } from '../layout'",
            "export const X = () => <Layout><p>Don't import from '../../db/schema'</p></Layout>",
          ].join('\n'),
        ),
        file('src/web/layout.tsx', "import { packageShow } from '../model/package'\n"),
        file('src/db/schema.ts', 'export const users = 1\n'),
      ]
      expect(webDbViolations(files)).toEqual([
        "src/web/pages/x.tsx:1 imports src/db/schema.ts ('../../db/schema'): web may not import db",
        "src/web/pages/x.tsx:2 imports src/db/types ('../../db/types'): web may not import db",
      ])
    })

    it('leaves the other surfaces to the layer rule', () => {
      const files = [file('src/http/route.ts', "import { users } from '../db/schema'\n")]
      expect(webDbViolations(files)).toEqual([])
    })
  })

  describe('NotAuthorized rule', () => {
    const refused = 'constructs NotAuthorized: only src/auth/ and src/actions/invoke.ts may'
    const thrower = [
      "import { NotAuthorized } from '../errors'",
      'export function check(ok: boolean) {',
      "  if (!ok) throw new NotAuthorized('no')",
      '}',
    ].join('\n')

    it('fires in a model file and in a web page, JSX around it', () => {
      const page = [
        "import { NotAuthorized } from '../../errors'",
        '/** @jsxImportSource hono/jsx */',
        "export const Page = ({ ok }: { ok: boolean }) => <p>Don't {ok ? 'x' : fail()}</p>",
        'function fail(): never {',
        "  throw new NotAuthorized('Not allowed')",
        '}',
        "const err = () => <b>{new errors.NotAuthorized('x').message}</b>",
      ].join('\n')
      const files = [file('src/model/x.ts', thrower), file('src/web/pages/x.tsx', page)]
      expect(notAuthorizedViolations(files)).toEqual([
        'src/model/x.ts:3 ' + refused,
        'src/web/pages/x.tsx:5 ' + refused,
        'src/web/pages/x.tsx:7 ' + refused,
      ])
    })

    it('allows it in src/auth/ and src/actions/invoke.ts, but not elsewhere in actions', () => {
      const files = [
        file('src/auth/x.ts', thrower),
        file('src/auth/rules/y.ts', thrower),
        file('src/actions/invoke.ts', thrower),
        file('src/actions/package/package_show.ts', thrower),
      ]
      expect(notAuthorizedViolations(files)).toEqual([
        'src/actions/package/package_show.ts:3 ' + refused,
      ])
    })

    it('does not fire on comments, strings, JSX text, imports or instanceof', () => {
      const quiet = [
        "import { NotAuthorized } from '../errors'",
        '// throw new NotAuthorized(...) is auth\'s job',
        '/* new NotAuthorized( */',
        "const s = 'throw new NotAuthorized()'",
        'const t = `new NotAuthorized(${x})`',
        'if (e instanceof NotAuthorized) rethrow(e)',
        'const P = () => <p>We never throw new NotAuthorized(here)</p>',
      ].join('\n')
      expect(notAuthorizedUses(quiet, { jsx: true })).toEqual([])
      expect(notAuthorizedViolations([file('src/web/pages/x.tsx', quiet)])).toEqual([])
      expect(notAuthorizedUses('throw new NotAuthorized()\nnew NotAuthorized')).toEqual([1, 2])
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
