// The documentation stays true to the code and to itself: docs/configuration.md is what the
// generator writes, every relative link and anchor of README.md, docs/ and the benchmark history
// resolves, and the README stays a five-minute read. The checker is then shown to catch breakage.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { renderConfigurationDoc } from '../../scripts/config-docs'
import { OPTIONS } from '../../src/config/options'
import { brokenLinks, extractLinks, headingAnchors, slugify, type DocFiles } from '../helpers/markdown-links'

const root = fileURLToPath(new URL('../../', import.meta.url))
const read = (path: string) => readFileSync(root + path, 'utf8')

const repoFiles: DocFiles = {
  kind(path) {
    if (!existsSync(root + path)) return undefined
    return statSync(root + path).isDirectory() ? 'dir' : 'file'
  },
  read,
}

const markdownFiles = [
  'README.md',
  ...readdirSync(root + 'docs')
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
  'bench/results/history.md',
]

describe('docs/configuration.md', () => {
  it('is exactly what scripts/config-docs.ts writes from src/config/options.ts', () => {
    const expected = renderConfigurationDoc()
    const actual = read('docs/configuration.md')
    expect(
      actual === expected,
      'docs/configuration.md is out of date with src/config/options.ts: run `npm run docs:config`',
    ).toBe(true)
  })

  it('lists every option once', () => {
    const doc = renderConfigurationDoc()
    for (const o of OPTIONS) expect(doc).toContain(`| \`${o.key}\` |`)
  })
})

describe('links in README.md, docs/ and bench/results/history.md', () => {
  it('finds the files', () => {
    expect(markdownFiles.length).toBeGreaterThan(10)
    for (const f of markdownFiles) expect(existsSync(root + f), f).toBe(true)
  })

  it.each(markdownFiles)('%s: every relative link and anchor resolves', (path) => {
    const found = brokenLinks(path, read(path), repoFiles)
    expect(found, `broken links:\n${found.join('\n')}`).toEqual([])
  })

  it('README.md links into docs/', () => {
    const targets = extractLinks(read('README.md')).map((l) => l.target)
    expect(targets.filter((t) => t.startsWith('docs/') && t.endsWith('.md')).length).toBeGreaterThan(10)
  })
})

describe('README.md', () => {
  it('is under 200 lines', () => {
    const text = read('README.md')
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
    expect(lines, `README.md has ${lines} lines; move detail into docs/`).toBeLessThan(200)
  })
})

describe('the link checker', () => {
  const fake = (files: Record<string, string>): DocFiles => ({
    kind: (p) => (p in files ? 'file' : Object.keys(files).some((f) => f.startsWith(p + '/')) ? 'dir' : undefined),
    read: (p) => files[p] ?? '',
  })

  it('reports a missing file and a missing anchor, in another file and in its own', () => {
    const files = {
      'docs/a.md': '# A\n\n## Known part\n',
      'docs/b.md': [
        '# B',
        'See [a](a.md), [known](a.md#known-part) and [here](#b).',
        'Broken: [gone](missing.md) and [nowhere](a.md#unknown-part).',
        'Also [self](#no-such-heading).',
        '```',
        '[in code](not-checked.md)',
        '```',
      ].join('\n'),
    }
    const found = brokenLinks('docs/b.md', files['docs/b.md'], fake(files))
    expect(found).toEqual([
      'docs/b.md:3: missing.md: no such file (docs/missing.md)',
      'docs/b.md:3: a.md#unknown-part: no heading #unknown-part in docs/a.md',
      'docs/b.md:4: #no-such-heading: no heading #no-such-heading in docs/b.md',
    ])
  })

  it('leaves absolute links alone and resolves ../ and directories', () => {
    const files = { 'README.md': '# R', 'bench/results/x.json': '{}', 'docs/c.md': '' }
    const text = '[w](https://example.org/x.md#y) [r](../README.md#r) [d](../bench/results/) [m](mailto:a@b)'
    expect(brokenLinks('docs/c.md', text, fake(files))).toEqual([])
    expect(brokenLinks('docs/c.md', '[up](../../etc/passwd)', fake(files))).toEqual([
      'docs/c.md:1: ../../etc/passwd: points outside the repository',
    ])
  })

  it('makes GitHub slugs, numbering duplicates', () => {
    expect(slugify('The change feed (`changes_list`)')).toBe('the-change-feed-changes_list')
    expect(slugify('Scale-out on libSQL replicas')).toBe('scale-out-on-libsql-replicas')
    expect(slugify('At the edge: Cloudflare Workers')).toBe('at-the-edge-cloudflare-workers')
    expect(slugify('DataStore (`bench/datastore.ts`, `BENCH_ONLY=datastore npm run bench`)')).toBe(
      'datastore-benchdatastorets-bench_onlydatastore-npm-run-bench',
    )
    expect([...headingAnchors('# Figures\n## Figures\n### Figures\n```\n# not a heading\n```')]).toEqual([
      'figures',
      'figures-1',
      'figures-2',
    ])
  })
})
