// STYLE.md §2's layering rules as pure checks over a list of source files (architecture.test.ts).
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
  kind: 'id' | 'str' | 'tpl' | 'num' | 'regex' | 'punct'
  value: string
  line: number
}

// After these keywords an expression starts, so `/` opens a regular expression.
const EXPRESSION_KEYWORDS = new Set([
  ...'return typeof instanceof in of new delete void throw'.split(' '),
  ...'case do else yield await extends'.split(' '),
])

const ID_START = /[\p{ID_Start}$_]/u
const ID_PART = /[\p{ID_Continue}$\u200c\u200d]/u

/**
 * The tokens of a TypeScript source: comments dropped, string and template text kept as single
 * tokens (so nothing inside them looks like code), code inside `${…}` tokenised as code.
 */
export function tokenize(source: string): Token[] {
  const out: Token[] = []
  // one entry per open `{`: true when it opened a template substitution
  const braces: boolean[] = []
  let i = 0
  let line = 1
  const n = source.length
  const push = (kind: Token['kind'], value: string, at: number) =>
    out.push({ kind, value, line: at })
  const count = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (source.charCodeAt(k) === 10) line++
  }
  const regexAllowed = () => {
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
        braces.push(true)
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
  while (i < n) {
    const c = source[i]!
    if (c === '\n') {
      line++
      i++
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\ufeff') {
      i++
    } else if (c === '/' && source[i + 1] === '/') {
      while (i < n && source[i] !== '\n') i++
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2)
      const stop = end < 0 ? n : end + 2
      count(i, stop)
      i = stop
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
      const t = templateText(i + 1)
      // a template without substitutions is a plain string (`import(\`./x\`)`)
      if (!t.open) out[out.length - 1]!.kind = 'str'
      i = t.end
    } else if (c === '}' && braces.length > 0 && braces[braces.length - 1]) {
      braces.pop()
      i = templateText(i + 1).end
    } else if (c === '/' && regexAllowed()) {
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
export function moduleRefs(source: string): ModuleRef[] {
  const tokens = tokenize(source)
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
 * The file a relative specifier names (tried as written, with `.ts`, as `/index.ts`, and `.js`
 * as `.ts`), or the normalised path when no listed file matches; undefined for a package.
 */
export function resolveSpecifier(
  from: string,
  specifier: string,
  paths: ReadonlySet<string>,
): string | undefined {
  if (specifier !== '.' && specifier !== '..' && !/^\.\.?\//.test(specifier)) return undefined
  const dir = from.includes('/') ? from.slice(0, from.lastIndexOf('/')) : ''
  const base = normalize(`${dir}/${specifier}`)
  const candidates = [base, `${base}.ts`, `${base}/index.ts`]
  if (base.endsWith('.js')) candidates.push(base.slice(0, -3) + '.ts')
  return candidates.find((c) => paths.has(c)) ?? base
}

const inFolder = (path: string, folder: string) => path === folder || path.startsWith(folder + '/')

const LOWER_LAYERS = ['src/model', 'src/auth', 'src/datastore', 'src/search']
const UPPER_LAYERS = ['src/http', 'src/actions']

/**
 * Imports against the layering, type imports included: model, auth, datastore or search importing
 * http or actions, and src/lib (helpers free of dependencies) importing any other part of src/.
 */
export function layerViolations(files: readonly SourceFile[]): string[] {
  const paths = new Set(files.map((f) => f.path))
  const out: string[] = []
  for (const f of files) {
    const lower = LOWER_LAYERS.some((l) => inFolder(f.path, l))
    const lib = inFolder(f.path, 'src/lib')
    if (!lower && !lib) continue
    for (const ref of moduleRefs(f.source)) {
      const target = resolveSpecifier(f.path, ref.specifier, paths)
      if (!target) continue
      const upward = lower
        ? UPPER_LAYERS.some((l) => inFolder(target, l))
        : inFolder(target, 'src') && !inFolder(target, 'src/lib')
      if (upward) out.push(`${f.path}:${ref.line} imports ${target} ('${ref.specifier}')`)
    }
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
export function processUses(source: string): number[] {
  const tokens = tokenize(source)
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
    for (const ref of moduleRefs(f.source))
      if (isNodeOnly(ref.specifier)) out.push(`${f.path}:${ref.line} imports '${ref.specifier}'`)
    for (const line of processUses(f.source)) out.push(`${f.path}:${line} uses process`)
  }
  return out
}

/** The import graph among the listed files, type-only references left out. */
function runtimeGraph(files: readonly SourceFile[]): Map<string, string[]> {
  const paths = new Set(files.map((f) => f.path))
  const graph = new Map<string, string[]>()
  for (const f of files) {
    const targets = new Set<string>()
    for (const ref of moduleRefs(f.source)) {
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
