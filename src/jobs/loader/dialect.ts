// The CSV dialect from a sample: the delimiter whose count per line is the most consistent (and
// not zero), and the quote character.

export interface Dialect {
  delimiter: string
  quote: string
}

const DELIMITERS = [',', ';', '\t', '|']

/** Counts of `ch` per line outside `quote`d parts, for up to 50 lines. */
function countsPerLine(text: string, ch: string, quote: string): number[] {
  const counts: number[] = []
  let n = 0
  let quoted = false
  for (let i = 0; i < text.length && counts.length < 50; i++) {
    const c = text[i]
    if (c === quote) quoted = !quoted
    else if (!quoted && c === ch) n++
    else if (!quoted && c === '\n') {
      counts.push(n)
      n = 0
    }
  }
  if (n > 0 || (counts.length === 0 && text.length)) counts.push(n)
  return counts
}

function score(counts: number[]): number {
  if (!counts.length || counts[0] === 0) return 0
  const head = counts[0]!
  const same = counts.filter((c) => c === head).length / counts.length
  // consistency first, then more columns
  return same * 1000 + Math.min(head, 999)
}

/** Guesses the dialect; `hint` 'tsv' (the resource's format) settles the delimiter. */
export function detectDialect(sample: string, hint?: 'csv' | 'tsv'): Dialect {
  const quote = usesSingleQuotes(sample) ? "'" : '"'
  if (hint === 'tsv') return { delimiter: '\t', quote }
  let best = { delimiter: ',', score: 0 }
  for (const d of DELIMITERS) {
    const s = score(countsPerLine(sample, d, quote))
    if (s > best.score) best = { delimiter: d, score: s }
  }
  return { delimiter: best.delimiter, quote }
}

/** Single quotes only when no double quote appears and fields start and end with them. */
function usesSingleQuotes(sample: string): boolean {
  if (sample.includes('"')) return false
  return /(^|[,;\t|])'[^'\n]*'(?=[,;\t|\r\n]|$)/m.test(sample)
}
