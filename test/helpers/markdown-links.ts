// Checks the relative links of Markdown files: the target file exists and a `#anchor` names a
// heading of the target (GitHub's slugs). Absolute links (http:, https:, mailto:, …) are not checked.
import { posix } from 'node:path'

/** What the checker may ask about the files around the one it reads (paths relative to the repo root). */
export interface DocFiles {
  /** 'file', 'dir', or undefined when nothing is there. */
  kind(path: string): 'file' | 'dir' | undefined
  read(path: string): string
}

export interface MarkdownLink {
  target: string
  line: number
}

/** The lines of a Markdown text outside fenced code blocks, with their numbers (1-based). */
function proseLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = []
  let fence: string | null = null
  text.split('\n').forEach((raw, i) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(raw)
    if (m) {
      const mark = m[1]!
      if (fence === null) fence = mark
      else if (mark[0] === fence[0] && mark.length >= fence.length) fence = null
      return
    }
    // indented code blocks are read as prose: a link there is checked too, never missed
    if (fence === null) out.push({ line: i + 1, text: raw })
  })
  return out
}

/** Inline links and images, `[text](target)` and `![alt](target)`, outside code. */
export function extractLinks(text: string): MarkdownLink[] {
  const links: MarkdownLink[] = []
  for (const { line, text: raw } of proseLines(text)) {
    const withoutCode = raw.replace(/(`+)[^`]*?\1/g, (s) => ' '.repeat(s.length))
    const re = /\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+"[^"]*")?\s*\)/g
    for (const m of withoutCode.matchAll(re)) {
      let target = m[1]!
      if (target.startsWith('<')) target = target.slice(1, -1)
      links.push({ target, line })
    }
  }
  return links
}

/** GitHub's anchor of a heading's text: lower-case, punctuation but `-` and `_` dropped, spaces → `-`. */
export function slugify(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images keep their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/`/g, '')
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors of a Markdown text's headings, duplicates numbered `-1`, `-2` as GitHub does. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const { text: raw } of proseLines(text)) {
    const m = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(raw)
    const html = raw.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)
    for (const h of html) anchors.add(h[1]!)
    if (!m) continue
    const base = slugify(m[1]!)
    const n = seen.get(base)
    anchors.add(n === undefined ? base : `${base}-${n}`)
    seen.set(base, (n ?? 0) + 1)
  }
  return anchors
}

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i

/**
 * The broken relative links of the Markdown file at `path` (relative to the repo root), each as
 * "path:line: target: why".
 */
export function brokenLinks(path: string, text: string, files: DocFiles): string[] {
  const problems: string[] = []
  for (const { target, line } of extractLinks(text)) {
    if (ABSOLUTE.test(target) || target.startsWith('//')) continue
    const hash = target.indexOf('#')
    const filePart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash))
    const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1))
    const where = `${path}:${line}: ${target}`
    const resolved = filePart === '' ? path : posix.normalize(posix.join(posix.dirname(path), filePart))
    if (resolved.startsWith('../') || posix.isAbsolute(resolved)) {
      problems.push(`${where}: points outside the repository`)
      continue
    }
    const kind = files.kind(resolved.replace(/\/$/, ''))
    if (!kind) {
      problems.push(`${where}: no such file (${resolved})`)
      continue
    }
    if (anchor === null || !resolved.endsWith('.md')) continue
    if (kind !== 'file' || !headingAnchors(files.read(resolved)).has(anchor)) {
      problems.push(`${where}: no heading #${anchor} in ${resolved}`)
    }
  }
  return problems
}
