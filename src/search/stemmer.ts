// English stemming for the search index: Porter2 (Snowball English) as Lucene 8 runs it.

// 'Y' (a consonant y, marked by the prelude) is deliberately not a vowel.
const isVowel = (c: string | undefined) =>
  c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || c === 'y'
// "non-vowel other than w, x or Y" in the short-syllable rule
const isVowelWXY = (c: string | undefined) => isVowel(c) || c === 'w' || c === 'x' || c === 'Y'
const VALID_LI = new Set('cdeghkmnrt')
const DOUBLES = new Set(['bb', 'dd', 'ff', 'gg', 'mm', 'nn', 'pp', 'rr', 'tt'])

/** Whole words with a fixed stem (checked before anything else). */
const EXCEPTIONS = new Map<string, string>([
  ['skis', 'ski'],
  ['skies', 'sky'],
  ['dying', 'die'],
  ['lying', 'lie'],
  ['tying', 'tie'],
  ['idly', 'idl'],
  ['gently', 'gentl'],
  ['ugly', 'ugli'],
  ['early', 'earli'],
  ['only', 'onli'],
  ['singly', 'singl'],
  ['sky', 'sky'],
  ['news', 'news'],
  ['howe', 'howe'],
  ['atlas', 'atlas'],
  ['cosmos', 'cosmos'],
  ['bias', 'bias'],
  ['andes', 'andes'],
])
/** Words left alone once the plural step has run. */
const AFTER_1A = new Set([
  'inning',
  'outing',
  'canning',
  'herring',
  'earring',
  'proceed',
  'exceed',
  'succeed',
])
/** Prefixes whose end marks region R1 directly. */
const R1_PREFIXES = ['gener', 'commun', 'arsen']

// Suffix tables, longest first, so the first hit is the longest match.
const STEP2: [string, string][] = [
  ['ization', 'ize'],
  ['ational', 'ate'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['iveness', 'ive'],
  ['tional', 'tion'],
  ['biliti', 'ble'],
  ['lessli', 'less'],
  ['entli', 'ent'],
  ['ation', 'ate'],
  ['alism', 'al'],
  ['aliti', 'al'],
  ['ousli', 'ous'],
  ['iviti', 'ive'],
  ['fulli', 'ful'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['abli', 'able'],
  ['izer', 'ize'],
  ['ator', 'ate'],
  ['alli', 'al'],
  ['bli', 'ble'],
  ['ogi', 'og'],
  ['li', ''],
]
const STEP3: [string, string][] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['alize', 'al'],
  ['icate', 'ic'],
  ['iciti', 'ic'],
  ['ative', ''],
  ['ical', 'ic'],
  ['ness', ''],
  ['ful', ''],
]
const STEP4 = [
  'ement',
  'ance',
  'ence',
  'able',
  'ible',
  'ment',
  'ant',
  'ent',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
  'ion',
  'al',
  'er',
  'ic',
]

const longest = <T extends string | [string, string]>(w: string, table: T[]): T | undefined =>
  table.find((e) => w.endsWith(typeof e === 'string' ? e : e[0]))

/** True when the word part w[0..end) ends in a short syllable. */
function endsShort(w: string, end: number): boolean {
  if (end >= 3 && !isVowelWXY(w[end - 1]) && isVowel(w[end - 2]) && !isVowel(w[end - 3]))
    return true
  return end === 2 && !isVowel(w[1]) && isVowel(w[0])
}

/** Start of the region after the first vowel-consonant pair at or after `from` (or w.length). */
function regionAfter(w: string, from: number): number {
  for (let i = from + 1; i < w.length; i++) if (!isVowel(w[i]) && isVowel(w[i - 1])) return i + 1
  return w.length
}

/**
 * Stems one lower-cased word. Letters outside a-z count as consonants, so accented words are
 * stemmed consistently (ASCII folding happens after stemming, as in the Solr chain).
 */
export function stemEnglish(input: string): string {
  const fixed = EXCEPTIONS.get(input)
  if (fixed !== undefined) return fixed
  if (input.length < 3) return input

  // prelude: drop a leading apostrophe, mark consonant y's as Y
  let w = input.startsWith("'") ? input.slice(1) : input
  const chars = w.split('')
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] === 'y' && (i === 0 || isVowel(chars[i - 1]))) chars[i] = 'Y'
  }
  w = chars.join('')

  const prefix = R1_PREFIXES.find((p) => w.startsWith(p))
  const p1 = prefix ? prefix.length : regionAfter(w, 0)
  const p2 = p1 >= w.length ? w.length : regionAfter(w, p1)
  const inR1 = (suffix: string) => w.length - suffix.length >= p1
  const inR2 = (suffix: string) => w.length - suffix.length >= p2
  const cut = (suffix: string, replacement = '') => {
    w = w.slice(0, w.length - suffix.length) + replacement
  }

  // step 0: possessive apostrophes
  const apos = longest(w, ["'s'", "'s", "'"])
  if (apos) cut(apos)

  // step 1a: plurals
  const s1a = longest(w, ['sses', 'ied', 'ies', 'us', 'ss', 's'])
  if (s1a === 'sses') cut(s1a, 'ss')
  else if (s1a === 'ied' || s1a === 'ies') cut(s1a, w.length - 3 > 1 ? 'i' : 'ie')
  else if (s1a === 's' && w.slice(0, -2).split('').some(isVowel)) cut(s1a)

  if (!AFTER_1A.has(w)) {
    step1b()
    // step 1c: y after a consonant (not the first letter) becomes i
    if ((w.endsWith('y') || w.endsWith('Y')) && w.length > 2 && !isVowel(w[w.length - 2])) {
      cut('y', 'i')
    }
    const s2 = longest(w, STEP2)
    if (s2 && inR1(s2[0])) {
      const before = w[w.length - s2[0].length - 1]
      if (s2[0] === 'ogi') {
        if (before === 'l') cut('ogi', 'og')
      } else if (s2[0] === 'li') {
        if (before !== undefined && VALID_LI.has(before)) cut('li')
      } else cut(s2[0], s2[1])
    }
    const s3 = longest(w, STEP3)
    if (s3 && inR1(s3[0]) && (s3[0] !== 'ative' || inR2(s3[0]))) cut(s3[0], s3[1])
    const s4 = longest(w, STEP4)
    if (s4 && inR2(s4)) {
      const before = w[w.length - 4]
      if (s4 !== 'ion' || before === 's' || before === 't') cut(s4)
    }
    // step 5: final e and ll
    if (w.endsWith('e')) {
      if (inR2('e') || (inR1('e') && !endsShort(w, w.length - 1))) cut('e')
    } else if (w.endsWith('l') && inR2('l') && w[w.length - 2] === 'l') cut('l')
  }
  return w.replaceAll('Y', 'y')

  function step1b() {
    const s = longest(w, ['eedly', 'ingly', 'edly', 'eed', 'ing', 'ed'])
    if (!s) return
    if (s === 'eed' || s === 'eedly') {
      if (inR1(s)) cut(s, 'ee')
      return
    }
    if (
      !w
        .slice(0, w.length - s.length)
        .split('')
        .some(isVowel)
    )
      return
    cut(s)
    if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) w += 'e'
    else if (DOUBLES.has(w.slice(-2))) w = w.slice(0, -1)
    else if (w.length === p1 && endsShort(w, w.length)) w += 'e'
  }
}
