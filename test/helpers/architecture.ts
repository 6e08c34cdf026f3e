// The architecture rules (layers, Node-only code, cycles, web off db, who constructs NotAuthorized)
// as pure checks over a list of source files (architecture.test.ts).
import { builtinModules } from 'node:module'

/** One source file; `path` is relative to the repository root, e.g. `src/model/package.ts`. */
export interface SourceFile {
  path: string
  source: string
}

/** One module reference of a file: a static or dynamic import, or an `export … from`. */
export interface ModuleRef {
  specifier: string
  line: number
  /** Erased at compile time: `import type`, `export type … from`, or only `type` specifiers. */
  typeOnly: boolean
}

interface Token {
  /** `jsx`: a JSX tag or JSX text (nothing in it is code). */
  kind: 'id' | 'str' | 'tpl' | 'num' | 'regex' | 'punct' | 'jsx'
  value: string
  line: number
}

/** How to read a source: `jsx` for a .tsx file (JSX elements are markup, not code). */
export interface ReadOptions {
  jsx?: boolean
}

/** The read options a file's name implies. */
export const readOptions = (path: string): ReadOptions => ({ jsx: path.endsWith('.tsx') })

// After these keywords an expression starts, so `/` opens a regular expression (and `<` a JSX
// element).
const EXPRESSION_KEYWORDS = new Set([
  ...'return typeof instanceof in of new delete void throw'.split(' '),
  ...'case do else yield await extends'.split(' '),
])

const ID_START = /[\p{ID_Start}$_]/u
const ID_PART = /[\p{ID_Continue}$\u200c\u200d]/u
// a JSX tag or attribute name: `a`, `my-el`, `svg:rect`, `Foo.Bar`
const JSX_NAME = /[\p{ID_Continue}$\u200c\u200d.:-]/u

/**
 * The tokens of a TypeScript source: comments dropped, string and template text kept as single
 * tokens (so nothing inside them looks like code), code inside `${…}` tokenised as code. With
 * `jsx`, an element where an expression may start is read as markup: tags and text become `jsx`
 * tokens (an apostrophe or `import` in text is just text), attribute strings `str` tokens, and
 * code inside `{…}` is tokenised as code.
 */
export function tokenize(source: string, options: ReadOptions = {}): Token[] {
  const out: Token[] = []
  let i = 0
  let line = 1
  const n = source.length
  const push = (kind: Token['kind'], value: string, at: number) =>
    out.push({ kind, value, line: at })
  const count = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (source.charCodeAt(k) === 10) line++
  }
  const expressionMayStart = () => {
    const prev = out[out.length - 1]
    if (!prev) return true
    if (prev.kind === 'id') return EXPRESSION_KEYWORDS.has(prev.value)
    if (prev.kind === 'punct') return prev.value !== ')' && prev.value !== ']'
    return false
  }
  /** Scans template text from `start` (just after ` or }) to its end or to a `${`. */
  const templateText = (start: number) => {
    const at = line
    let k = start
    let text = ''
    while (k < n) {
      const c = source[k]!
      if (c === '\\') {
        text += source.slice(k, k + 2)
        k += 2
      } else if (c === '`') {
        count(start, k + 1)
        push('tpl', text, at)
        return { end: k + 1, open: false }
      } else if (c === '$' && source[k + 1] === '{') {
        count(start, k + 2)
        push('tpl', text, at)
        return { end: k + 2, open: true }
      } else {
        text += c
        k++
      }
    }
    count(start, n)
    push('tpl', text, at)
    return { end: n, open: false }
  }
  /** The JSX name at `from` (possibly empty: a fragment's `<>`). */
  const jsxName = (from: number) => {
    let k = from
    while (k < n && JSX_NAME.test(source[k]!)) k++
    return source.slice(from, k)
  }
  /**
   * Whether the `<` at i opens a JSX element: an expression may start here, a name or `>`
   * follows, and it is not a generic arrow function's type parameters (`<T,>`, `<T extends U>`).
   */
  const opensElement = () => {
    if (!options.jsx || !expressionMayStart()) return false
    const next = source[i + 1] ?? ''
    if (next === '>') return true
    if (!ID_START.test(next)) return false
    const after = source.slice(i + 1 + jsxName(i + 1).length)
    return !/^\s*,/.test(after) && !/^\s+extends\s/.test(after)
  }
  const skipSpace = () => {
    while (i < n && /\s/.test(source[i]!)) {
      if (source[i] === '\n') line++
      i++
    }
  }
  /** A JSX element from its `<` at i to just after its closing tag (or `/>`). */
  const element = () => {
    const at = line
    i++
    const name = jsxName(i)
    i += name.length
    push('jsx', `<${name}`, at)
    // attributes
    for (;;) {
      skipSpace()
      if (i >= n) return
      const c = source[i]!
      if (c === '/' && source[i + 1] === '>') {
        i += 2
        push('jsx', '/>', line)
        return
      }
      if (c === '>') {
        i++
        break
      }
      if (c === '/' && (source[i + 1] === '/' || source[i + 1] === '*')) comment()
      else if (c === '{') embedded()
      else if (c === '"' || c === "'") {
        // attribute strings have no escapes and may span lines
        const end = source.indexOf(c, i + 1)
        const stop = end < 0 ? n : end
        push('str', source.slice(i + 1, stop), line)
        count(i, stop)
        i = stop + 1
      } else if (c === '<' && ID_START.test(source[i + 1] ?? '')) element()
      else {
        const attr = jsxName(i)
        if (attr) push('jsx', attr, line)
        i += attr.length || 1
      }
    }
    // children, up to the closing tag
    while (i < n) {
      const c = source[i]!
      if (c === '<' && source[i + 1] === '/') {
        const end = source.indexOf('>', i)
        const stop = end < 0 ? n : end + 1
        push('jsx', source.slice(i, stop).replace(/\s+/g, ''), line)
        count(i, stop)
        i = stop
        return
      }
      if (c === '<') element()
      else if (c === '{') embedded()
      else {
        let k = i
        while (k < n && source[k] !== '<' && source[k] !== '{') k++
        push('jsx', source.slice(i, k), line)
        count(i, k)
        i = k
      }
    }
  }
  /** `{…}` inside JSX, from its `{` at i to just after its `}`: code. */
  const embedded = () => {
    push('punct', '{', line)
    i++
    code(true)
  }
  const comment = () => {
    if (source[i + 1] === '/') {
      while (i < n && source[i] !== '\n') i++
    } else {
      const end = source.indexOf('*/', i + 2)
      const stop = end < 0 ? n : end + 2
      count(i, stop)
      i = stop
    }
  }
  /** Code from i to the end, or with `nested` to just after the `}` closing an open `{`. */
  const code = (nested: boolean) => {
    // one entry per open `{`: true when it opened a template substitution
    const braces: boolean[] = []
    const template = (start: number) => {
      const t = templateText(start)
      if (t.open) braces.push(true)
      return t
    }
    while (i < n) {
      const c = source[i]!
      if (c === '\n') {
        line++
        i++
      } else if (c === ' ' || c === '\t' || c === '\r' || c === '\ufeff') {
        i++
      } else if (c === '/' && (source[i + 1] === '/' || source[i + 1] === '*')) {
        comment()
      } else if (c === "'" || c === '"') {
        let k = i + 1
        let text = ''
        while (k < n && source[k] !== c && source[k] !== '\n') {
          if (source[k] === '\\') {
            text += source[k + 1] ?? ''
            k += 2
          } else text += source[k++]
        }
        push('str', text, line)
        count(i, k)
        i = k + 1
      } else if (c === '`') {
        const t = template(i + 1)
        // a template without substitutions is a plain string (`import(\`./x\`)`)
        if (!t.open) out[out.length - 1]!.kind = 'str'
        i = t.end
      } else if (c === '}' && braces.length > 0 && braces[braces.length - 1]) {
        braces.pop()
        i = template(i + 1).end
      } else if (c === '}' && braces.length === 0 && nested) {
        push('punct', c, line)
        i++
        return
      } else if (c === '<' && opensElement()) {
        element()
      } else if (c === '/' && expressionMayStart()) {
        let k = i + 1
        let inClass = false
        while (k < n && source[k] !== '\n') {
          const d = source[k]
          if (d === '\\') k++
          else if (d === '[') inClass = true
          else if (d === ']') inClass = false
          else if (d === '/' && !inClass) break
          k++
        }
        k++
        while (k < n && ID_PART.test(source[k]!)) k++
        push('regex', source.slice(i, k), line)
        i = k
      } else if (ID_START.test(c)) {
        let k = i + 1
        while (k < n && ID_PART.test(source[k]!)) k++
        push('id', source.slice(i, k), line)
        i = k
      } else if (c >= '0' && c <= '9') {
        let k = i + 1
        while (k < n && /[\w.]/.test(source[k]!)) k++
        push('num', source.slice(i, k), line)
        i = k
      } else if (c === '?' && source[i + 1] === '.' && !/\d/.test(source[i + 2] ?? '')) {
        push('punct', '?.', line)
        i += 2
      } else {
        if (c === '{') braces.push(false)
        else if (c === '}') braces.pop()
        push('punct', c, line)
        i++
      }
    }
  }
  code(false)
  return out
}

const is = (t: Token | undefined, kind: Token['kind'], value?: string) =>
  t !== undefined && t.kind === kind && (value === undefined || t.value === value)

/**
 * The specifiers of a `{ … }` list starting at tokens[open]: whether every one is `type X`, and
 * the index just after the closing brace.
 */
function braceList(tokens: Token[], open: number): { allTypes: boolean; end: number } {
  let k = open + 1
  let specs = 0
  let typed = 0
  let first = true
  let firstIsType = false
  let length = 0
  const close = () => {
    if (length === 0) return
    specs++
    // `type` alone or `type as x` names a binding called type
    if (firstIsType && length > 1 && !(length === 3 && is(tokens[k - 2], 'id', 'as'))) typed++
  }
  while (k < tokens.length && !is(tokens[k], 'punct', '}')) {
    const t = tokens[k]!
    if (is(t, 'punct', ',')) {
      close()
      first = true
      length = 0
    } else {
      if (first) firstIsType = is(t, 'id', 'type')
      first = false
      length++
    }
    k++
  }
  close()
  return { allTypes: specs > 0 && typed === specs, end: k + 1 }
}

/** The module references of a source: static imports, `export … from` and `import('…')`. */
export function moduleRefs(source: string, options: ReadOptions = {}): ModuleRef[] {
  const tokens = tokenize(source, options)
  const refs: ModuleRef[] = []
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!
    if (t.kind !== 'id' || (t.value !== 'import' && t.value !== 'export')) continue
    const prev = tokens[i - 1]
    if (is(prev, 'punct', '.') || is(prev, 'punct', '?.')) continue
    const next = tokens[i + 1]
    if (t.value === 'import') {
      if (is(next, 'punct', '(')) {
        const arg = tokens[i + 2]
        if (is(arg, 'str') && (is(tokens[i + 3], 'punct', ')') || is(tokens[i + 3], 'punct', ',')))
          refs.push({ specifier: arg!.value, line: t.line, typeOnly: is(prev, 'id', 'typeof') })
        continue
      }
      if (is(next, 'punct', '.')) continue // import.meta
      if (is(next, 'str')) {
        refs.push({ specifier: next!.value, line: t.line, typeOnly: false })
        continue
      }
      // `import type X`, not a default import named type (`import type from`, `import type, {`)
      let typeOnly =
        is(next, 'id', 'type') &&
        !is(tokens[i + 2], 'id', 'from') &&
        !is(tokens[i + 2], 'punct', ',')
      let k = i + 1
      let hasBinding = false
      let braceTypes: boolean | undefined
      while (k < tokens.length) {
        const u = tokens[k]!
        if (is(u, 'id', 'from') && is(tokens[k + 1], 'str')) {
          if (!typeOnly) typeOnly = braceTypes === true && !hasBinding
          refs.push({ specifier: tokens[k + 1]!.value, line: t.line, typeOnly })
          break
        }
        // not an import declaration after all (`import x = require(…)`, an object key `import:`)
        if ([';', '=', '(', ':'].some((p) => is(u, 'punct', p))) break
        if (is(u, 'punct', '{')) {
          const list = braceList(tokens, k)
          braceTypes = list.allTypes
          k = list.end
          continue
        }
        if (is(u, 'id') || is(u, 'punct', '*')) hasBinding ||= !(k === i + 1 && typeOnly)
        k++
      }
      continue
    }
    // export … from
    let k = i + 1
    let typeOnly = false
    if (is(tokens[k], 'id', 'type')) {
      typeOnly = true
      k++
    }
    if (is(tokens[k], 'punct', '{')) {
      const list = braceList(tokens, k)
      k = list.end
      typeOnly ||= list.allTypes
    } else if (is(tokens[k], 'punct', '*')) {
      k++
      if (is(tokens[k], 'id', 'as')) k += 2
    } else continue
    if (is(tokens[k], 'id', 'from') && is(tokens[k + 1], 'str'))
      refs.push({ specifier: tokens[k + 1]!.value, line: t.line, typeOnly })
  }
  return refs
}

/** `a/b/../c` → `a/c`. */
function normalize(path: string): string {
  const parts: string[] = []
  for (const p of path.split('/')) {
    if (p === '' || p === '.') continue
    if (p === '..') parts.pop()
    else parts.push(p)
  }
  return parts.join('/')
}

/**
 * The file a relative specifier names (tried as written, with `.ts` or `.tsx`, as `/index.ts` or
 * `/index.tsx`, and `.js` as `.ts` or `.tsx`), or the normalised path when no listed file matches;
 * undefined for a package.
 */
export function resolveSpecifier(
  from: string,
  specifier: string,
  paths: ReadonlySet<string>,
): string | undefined {
  if (specifier !== '.' && specifier !== '..' && !/^\.\.?\//.test(specifier)) return undefined
  const dir = from.includes('/') ? from.slice(0, from.lastIndexOf('/')) : ''
  const base = normalize(`${dir}/${specifier}`)
  const candidates = [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]
  if (base.endsWith('.js')) candidates.push(base.slice(0, -3) + '.ts', base.slice(0, -3) + '.tsx')
  if (base.endsWith('.jsx')) candidates.push(base.slice(0, -4) + '.tsx')
  return candidates.find((c) => paths.has(c)) ?? base
}

/** The module references of a file, read as its extension says (.tsx with JSX). */
export const refsOf = (f: SourceFile) => moduleRefs(f.source, readOptions(f.path))

const inFolder = (path: string, folder: string) => path === folder || path.startsWith(folder + '/')

/** One tier of the layering: folders (`src/db`) and top-level files (`src/errors.ts`). */
export interface Tier {
  level: number
  name: string
  members: readonly string[]
}

/**
 * The layering, lowest first: a file may import its own tier (peers import each other; the cycle
 * rule still applies) and lower tiers, type-only imports included.
 */
export const TIERS: readonly Tier[] = [
  {
    level: 0,
    name: 'base',
    members: ['src/lib', 'src/errors.ts', 'src/data-dict.ts', 'src/context.ts'],
  },
  { level: 1, name: 'db', members: ['src/db', 'src/config'] },
  {
    level: 2,
    name: 'model',
    members: [
      'src/model',
      'src/datastore',
      'src/search',
      'src/storage',
      'src/notify',
      'src/validation',
      'src/scheming',
    ],
  },
  { level: 3, name: 'auth', members: ['src/auth'] },
  { level: 4, name: 'jobs', members: ['src/jobs'] },
  { level: 5, name: 'actions', members: ['src/actions'] },
  {
    level: 6,
    name: 'surface',
    members: ['src/http', 'src/web', 'src/mcp', 'src/dcat', 'src/openapi', 'src/transfer'],
  },
  { level: 7, name: 'runtime', members: ['src/runtime', 'src/app.ts'] },
]

/** The tier of a path (a listed file, or an unresolved target such as `src/errors`). */
export function tierOf(path: string): Tier | undefined {
  return TIERS.find((t) =>
    t.members.some((m) =>
      /\.tsx?$/.test(m) ? path === m || path === m.replace(/\.tsx?$/, '') : inFolder(path, m),
    ),
  )
}

const CONTEXT = 'src/context.ts'
const isContext = (path: string) => path === CONTEXT || path === CONTEXT.slice(0, -3)

/**
 * Imports against the layering (TIERS): a file importing a higher tier, a type-only import as much
 * as a value import, with two allowances: anything may import types from src/context.ts (which
 * itself may import the types of every tier: it gathers the services' interfaces), and the model
 * tier may import types (not values) from src/jobs/, the job queue's port. Also: src/lib imports
 * nothing else from src/, and every file of src/ is in a tier.
 */
export function layerViolations(files: readonly SourceFile[]): string[] {
  const paths = new Set(files.map((f) => f.path))
  const out: string[] = []
  for (const f of files) {
    const from = tierOf(f.path)
    if (!from) {
      if (inFolder(f.path, 'src')) out.push(`${f.path} is in no tier of the layer map`)
      continue
    }
    const lib = inFolder(f.path, 'src/lib')
    for (const ref of refsOf(f)) {
      const target = resolveSpecifier(f.path, ref.specifier, paths)
      if (!target || !inFolder(target, 'src')) continue
      const at = `${f.path}:${ref.line} imports ${target} ('${ref.specifier}')`
      if (ref.typeOnly && isContext(target)) continue
      if (lib && !inFolder(target, 'src/lib')) {
        out.push(`${at}: src/lib may import only src/lib`)
        continue
      }
      const to = tierOf(target)
      if (!to || to.level <= from.level) continue
      if (ref.typeOnly && f.path === CONTEXT) continue
      const jobs = inFolder(target, 'src/jobs') && from.name === 'model'
      if (jobs && ref.typeOnly) continue
      const kind = ref.typeOnly ? 'a type-only import counts' : 'a value import'
      const rule = jobs
        ? `${from.name} tier may import only types from ${to.name} (the job queue's port)`
        : `${from.name} tier (${from.level}) may not import ${to.name} tier (${to.level}); ${kind}`
      out.push(`${at}: ${rule}`)
    }
  }
  return out
}

/** src/web/ importing src/db/ at all, types included: pages go through actions and the model. */
export function webDbViolations(files: readonly SourceFile[]): string[] {
  const paths = new Set(files.map((f) => f.path))
  const out: string[] = []
  for (const f of files) {
    if (!inFolder(f.path, 'src/web')) continue
    for (const ref of refsOf(f)) {
      const target = resolveSpecifier(f.path, ref.specifier, paths)
      if (!target || !inFolder(target, 'src/db')) continue
      const at = `${f.path}:${ref.line} imports ${target} ('${ref.specifier}')`
      out.push(`${at}: web may not import db`)
    }
  }
  return out
}

/** Where NotAuthorized may be constructed: the authorisation rules, and invoke (the gate). */
const NOT_AUTHORIZED_HOMES = ['src/auth', 'src/actions/invoke.ts']
const NOT_AUTHORIZED_RULE = 'only src/auth/ and src/actions/invoke.ts may'

/** Lines where code (not a comment, string or JSX text) says `new NotAuthorized` or `new x.…`. */
export function notAuthorizedUses(source: string, options: ReadOptions = {}): number[] {
  const tokens = tokenize(source, options)
  const lines: number[] = []
  tokens.forEach((t, i) => {
    if (!is(t, 'id', 'new')) return
    let k = i + 1
    while (is(tokens[k], 'id') && is(tokens[k + 1], 'punct', '.')) k += 2
    if (is(tokens[k], 'id', 'NotAuthorized')) lines.push(t.line)
  })
  return lines
}

/** `new NotAuthorized` outside src/auth/ and src/actions/invoke.ts. */
export function notAuthorizedViolations(files: readonly SourceFile[]): string[] {
  const out: string[] = []
  for (const f of files) {
    if (NOT_AUTHORIZED_HOMES.some((h) => inFolder(f.path, h))) continue
    for (const line of notAuthorizedUses(f.source, readOptions(f.path)))
      out.push(`${f.path}:${line} constructs NotAuthorized: ${NOT_AUTHORIZED_RULE}`)
  }
  return out
}

const NODE_BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('node:')))

function isNodeOnly(specifier: string): boolean {
  if (specifier.startsWith('node:')) return true
  if (specifier === '@hono/node-server' || specifier.startsWith('@hono/node-server/')) return true
  return NODE_BUILTINS.has(specifier.split('/')[0]!)
}

const GLOBAL_OBJECTS = new Set(['globalThis', 'global', 'self', 'window'])

/** Lines where code (not a comment or a string) reads `process`. */
export function processUses(source: string, options: ReadOptions = {}): number[] {
  const tokens = tokenize(source, options)
  const lines: number[] = []
  tokens.forEach((t, i) => {
    if (!is(t, 'id', 'process')) return
    const prev = tokens[i - 1]
    const next = tokens[i + 1]
    // `job.process` is someone else's property; `globalThis.process` is the real one
    if (is(prev, 'punct', '.') || is(prev, 'punct', '?.')) {
      const owner = tokens[i - 2]
      if (!owner || owner.kind !== 'id' || !GLOBAL_OBJECTS.has(owner.value)) return
    } else if (
      !is(next, 'punct', '.') &&
      !is(next, 'punct', '?.') &&
      !is(next, 'punct', '[') &&
      !is(prev, 'id', 'typeof') &&
      !is(prev, 'punct', '=')
    )
      return
    lines.push(t.line)
  })
  return lines
}

/** Outside src/runtime/: imports of Node builtins or @hono/node-server, and uses of `process`. */
export function runtimeViolations(files: readonly SourceFile[]): string[] {
  const out: string[] = []
  for (const f of files) {
    if (inFolder(f.path, 'src/runtime')) continue
    for (const ref of refsOf(f))
      if (isNodeOnly(ref.specifier)) out.push(`${f.path}:${ref.line} imports '${ref.specifier}'`)
    for (const line of processUses(f.source, readOptions(f.path)))
      out.push(`${f.path}:${line} uses process`)
  }
  return out
}

/** The import graph among the listed files, type-only references left out. */
function runtimeGraph(files: readonly SourceFile[]): Map<string, string[]> {
  const paths = new Set(files.map((f) => f.path))
  const graph = new Map<string, string[]>()
  for (const f of files) {
    const targets = new Set<string>()
    for (const ref of refsOf(f)) {
      if (ref.typeOnly) continue
      const target = resolveSpecifier(f.path, ref.specifier, paths)
      if (target && paths.has(target)) targets.add(target)
    }
    graph.set(f.path, [...targets].sort())
  }
  return graph
}

/** Strongly connected components (Tarjan), each as a set of paths. */
function components(graph: Map<string, string[]>): Set<string>[] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const out: Set<string>[] = []
  let counter = 0
  const visit = (v: string) => {
    index.set(v, counter)
    low.set(v, counter++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const scc = new Set<string>()
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        scc.add(w)
      } while (w !== v)
      out.push(scc)
    }
  }
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v)
  return out
}

/** The shortest path start → … → start inside `scc` (breadth first), or undefined. */
function shortestCycle(graph: Map<string, string[]>, scc: Set<string>, start: string) {
  const parent = new Map<string, string>()
  const queue = [start]
  for (let q = 0; q < queue.length; q++) {
    const v = queue[q]!
    for (const w of graph.get(v) ?? []) {
      if (!scc.has(w)) continue
      if (w === start) {
        const path = [v]
        while (path[0] !== start) path.unshift(parent.get(path[0]!)!)
        return path
      }
      if (!parent.has(w) && w !== start) {
        parent.set(w, v)
        queue.push(w)
      }
    }
  }
  return undefined
}

/**
 * Runtime import cycles as `a.ts → b.ts → a.ts` chains: for each file in a cycle, the shortest
 * cycle through it, each reported once (starting at its first path in sort order).
 */
export function cycleViolations(files: readonly SourceFile[]): string[] {
  const graph = runtimeGraph(files)
  const seen = new Set<string>()
  const out: string[] = []
  for (const scc of components(graph)) {
    const selfLoop = scc.size === 1 && [...scc].some((v) => graph.get(v)!.includes(v))
    if (scc.size === 1 && !selfLoop) continue
    for (const v of [...scc].sort()) {
      const cycle = shortestCycle(graph, scc, v)
      if (!cycle) continue
      const first = cycle.indexOf([...cycle].sort()[0]!)
      const rotated = [...cycle.slice(first), ...cycle.slice(0, first)]
      const chain = [...rotated, rotated[0]!].join(' → ')
      if (!seen.has(chain)) {
        seen.add(chain)
        out.push(chain)
      }
    }
  }
  return out.sort()
}
