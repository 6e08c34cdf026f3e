// Turns zod issues into CKAN's validation error dict ({ field: [messages] }, lists of dicts parallel).
import type { z } from 'zod'
import type { ErrorDict } from '../errors'

type Node = { msgs: string[]; children: Map<string | number, Node> }

const node = (): Node => ({ msgs: [], children: new Map() })

function toValue(n: Node): unknown {
  if (n.children.size === 0) return n.msgs
  const keys = [...n.children.keys()]
  if (keys.every((k) => typeof k === 'number')) {
    // ckan: a list of dicts gets a parallel list; valid items are {}
    const max = Math.max(...(keys as number[]))
    const out: unknown[] = []
    for (let i = 0; i <= max; i++) {
      const c = n.children.get(i)
      out.push(c ? toValue(c) : {})
    }
    return out
  }
  const out: Record<string, unknown> = {}
  for (const [k, c] of n.children) out[String(k)] = toValue(c)
  if (n.msgs.length) out.__messages = n.msgs
  return out
}

export function zodToErrorDict(err: z.ZodError): ErrorDict {
  const root = node()
  for (const issue of err.issues) {
    let cur = root
    const path = issue.path.length ? issue.path : ['message']
    for (const seg of path) {
      const key = typeof seg === 'symbol' ? String(seg) : seg
      let next = cur.children.get(key)
      if (!next) cur.children.set(key, (next = node()))
      cur = next
    }
    cur.msgs.push(issue.message)
  }
  const out: ErrorDict = {}
  for (const [k, c] of root.children) {
    const v = toValue(c)
    // ckan: the message of a whole-dict error is a plain string, not a list
    out[String(k)] = k === 'message' && Array.isArray(v) ? v.join(' ') : v
  }
  // ckan: tag errors are flattened into one list of strings
  if (out.tags !== undefined && !isStringList(out.tags)) out.tags = flattenStrings(out.tags)
  return out
}

const isStringList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string')

function flattenStrings(v: unknown): string[] {
  if (typeof v === 'string') return [v]
  if (Array.isArray(v)) return v.flatMap(flattenStrings)
  if (v && typeof v === 'object') {
    const parts = Object.values(v).flatMap(flattenStrings)
    return parts.length ? [parts.join(', ')] : []
  }
  return []
}
