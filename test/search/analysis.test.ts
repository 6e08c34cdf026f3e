// Unit tests for search text analysis: Porter2 stemming, word-delimiter splitting, folding.
import { describe, expect, it } from 'vitest'
import {
  analyzeGenericIndex,
  analyzeGenericMultiTerm,
  analyzeGenericQuery,
  analyzeIndex,
  analyzeIndexTokens,
  analyzeMultiTerm,
  analyzeQuery,
  analyzeQueryTokens,
  exactValue,
  foldToAscii,
  lowerCase,
  ngramIndex,
  ngramQuery,
  splitWhitespace,
  wordDelimiter,
} from '../../src/search/analysis'
import { stemEnglish } from '../../src/search/stemmer'

// Expected stems come from the reference Snowball implementations (classic English algorithm,
// the one Lucene 8 ships); the last three are words where later Snowball releases changed.
// prettier-ignore
const STEMS: [string, string][] = [
  ['caresses', 'caress'], ['ponies', 'poni'], ['ties', 'tie'], ['cats', 'cat'], ['cries', 'cri'],
  ['gas', 'gas'], ['this', 'this'], ['gaps', 'gap'], ['kiwis', 'kiwi'], ['bus', 'bus'],
  ['class', 'class'], ['agreed', 'agre'], ['bleed', 'bleed'], ['feed', 'feed'],
  ['plastered', 'plaster'], ['motoring', 'motor'], ['sing', 'sing'], ['conflated', 'conflat'],
  ['troubled', 'troubl'], ['sized', 'size'], ['hopping', 'hop'], ['tanned', 'tan'],
  ['falling', 'fall'], ['hissing', 'hiss'], ['fizzed', 'fizz'], ['failing', 'fail'],
  ['filing', 'file'], ['hoped', 'hope'], ['hope', 'hope'], ['cry', 'cri'], ['by', 'by'],
  ['say', 'say'], ['happy', 'happi'], ['happiness', 'happi'], ['relational', 'relat'],
  ['conditional', 'condit'], ['rational', 'ration'], ['valenci', 'valenc'], ['digitizer', 'digit'],
  ['generalization', 'general'], ['triplicate', 'triplic'], ['formalize', 'formal'],
  ['electriciti', 'electr'], ['hopeful', 'hope'], ['goodness', 'good'], ['revival', 'reviv'],
  ['allowance', 'allow'], ['inference', 'infer'], ['airliner', 'airlin'],
  ['gyroscopic', 'gyroscop'], ['adjustable', 'adjust'], ['defensible', 'defens'],
  ['irritant', 'irrit'], ['replacement', 'replac'], ['adjustment', 'adjust'],
  ['dependent', 'depend'], ['adoption', 'adopt'], ['homologou', 'homologou'],
  ['communism', 'communism'], ['activate', 'activ'], ['angulariti', 'angular'],
  ['homologous', 'homolog'], ['effective', 'effect'], ['bowdlerize', 'bowdler'],
  ['probate', 'probat'], ['rate', 'rate'], ['cease', 'ceas'], ['controll', 'control'],
  ['roll', 'roll'], ['consign', 'consign'], ['consigned', 'consign'], ['consigning', 'consign'],
  ['consignment', 'consign'], ['consist', 'consist'], ['consisted', 'consist'],
  ['consistency', 'consist'], ['consistent', 'consist'], ['consistently', 'consist'],
  ['knack', 'knack'], ['knackeries', 'knackeri'], ['knavery', 'knaveri'], ['generate', 'generat'],
  ['generously', 'generous'], ['generous', 'generous'], ['arsenic', 'arsenic'],
  ['arsenal', 'arsenal'], ['skis', 'ski'], ['skies', 'sky'], ['sky', 'sky'], ['dying', 'die'],
  ['lying', 'lie'], ['tying', 'tie'], ['idly', 'idl'], ['gently', 'gentl'], ['ugly', 'ugli'],
  ['early', 'earli'], ['only', 'onli'], ['singly', 'singl'], ['news', 'news'], ['howe', 'howe'],
  ['atlas', 'atlas'], ['cosmos', 'cosmos'], ['bias', 'bias'], ['andes', 'andes'],
  ['inning', 'inning'], ['innings', 'inning'], ['outing', 'outing'], ['canning', 'canning'],
  ['herring', 'herring'], ['earring', 'earring'], ['proceed', 'proceed'],
  ['proceeding', 'proceed'], ['exceed', 'exceed'], ['succeed', 'succeed'],
  ['succeeded', 'succeed'], ['flood', 'flood'], ['floods', 'flood'], ['flooding', 'flood'],
  ['flooded', 'flood'], ['rivers', 'river'], ['river', 'river'], ['water', 'water'],
  ['waters', 'water'], ['quality', 'qualiti'], ['qualities', 'qualiti'], ['economy', 'economi'],
  ['economic', 'econom'], ['economics', 'econom'], ['statistics', 'statist'],
  ['statistical', 'statist'], ['population', 'popul'], ['populations', 'popul'],
  ['transport', 'transport'], ['transportation', 'transport'], ['government', 'govern'],
  ['governmental', 'government'], ['national', 'nation'], ['environment', 'environ'],
  ['environmental', 'environment'], ['education', 'educ'], ['health', 'health'],
  ['hospitals', 'hospit'], ['analysis', 'analysi'], ['analyses', 'analys'], ['dataset', 'dataset'],
  ['datasets', 'dataset'], ['data', 'data'], ['database', 'databas'], ['databases', 'databas'],
  ['census', 'census'], ['spending', 'spend'], ['budgets', 'budget'], ['crime', 'crime'],
  ['crimes', 'crime'], ['agriculture', 'agricultur'], ['agricultural', 'agricultur'],
  ['energy', 'energi'], ['renewable', 'renew'], ['emissions', 'emiss'], ['climate', 'climat'],
  ['temperatures', 'temperatur'], ['rainfall', 'rainfal'], ['weather', 'weather'],
  ['forecasts', 'forecast'], ['boundaries', 'boundari'], ['geography', 'geographi'],
  ['geographic', 'geograph'], ['geospatial', 'geospati'], ['maps', 'map'], ['mapping', 'map'],
  ['schools', 'school'], ['students', 'student'], ['research', 'research'],
  ['researchers', 'research'], ['tolstoy', 'tolstoy'], ['russian', 'russian'],
  ['warandpeace', 'warandpeac'], ['annakarenina', 'annakarenina'], ['wonderful', 'wonder'],
  ['story', 'stori'], ['stories', 'stori'], ['roads', 'road'], ['traffic', 'traffic'],
  ['accidents', 'accid'], ['cycling', 'cycl'], ['bicycles', 'bicycl'], ['parking', 'park'],
  ['housing', 'hous'], ['prices', 'price'], ['inflation', 'inflat'], ['employment', 'employ'],
  ['unemployment', 'unemploy'], ['wages', 'wage'], ['salaries', 'salari'], ['taxes', 'tax'],
  ['revenue', 'revenu'], ['expenditure', 'expenditur'], ['organisations', 'organis'],
  ['licence', 'licenc'], ['license', 'licens'], ['licensing', 'licens'], ['open', 'open'],
  ['openness', 'open'], ['publishing', 'publish'], ['published', 'publish'],
  ['publication', 'public'], ['publications', 'public'], ['dying', 'die'], ['lying', 'lie'],
  ['yesterday', 'yesterday'], ['youth', 'youth'], ['ycleped', 'yclepe'], ['yelling', 'yell'],
  ['playing', 'play'], ['played', 'play'], ['player', 'player'], ['enjoyed', 'enjoy'],
  ['enjoying', 'enjoy'], ['eyeing', 'eye'], ['abyss', 'abyss'], ['syzygy', 'syzygi'],
  ['beyond', 'beyond'], ['universities', 'univers'], ['organization', 'organ'],
  ['quantization', 'quantiz'],
]

describe('stemEnglish', () => {
  it.each(STEMS)('stems %s to %s', (word, stem) => {
    expect(stemEnglish(word)).toBe(stem)
  })

  it.each([['a'], ['is'], ['by'], ['']])('leaves the short word %j alone', (word) => {
    expect(stemEnglish(word)).toBe(word)
  })

  it('treats letters outside a-z as consonants', () => {
    expect(stemEnglish('cafés')).toBe('café')
    expect(stemEnglish('naïve')).toBe('naïv')
  })

  it('drops a leading apostrophe and possessive endings', () => {
    expect(stemEnglish("'tis")).toBe('tis')
    expect(stemEnglish("dog's")).toBe('dog')
    expect(stemEnglish("dogs'")).toBe('dog')
  })
})

describe('analyzeIndex / analyzeQuery (English text fields)', () => {
  // [input, index-side terms, query-side terms]
  const cases: [string, string[], string[]][] = [
    ['water', ['water'], ['water']],
    ['Water Quality', ['water', 'qualiti'], ['water', 'qualiti']],
    ['floods flooding flooded', ['flood', 'flood', 'flood'], ['flood', 'flood', 'flood']],
    ['rivers', ['river'], ['river']],
    ['warandpeace', ['warandpeac'], ['warandpeac']],
    ['wi-fi', ['wi', 'wifi', 'fi'], ['wi', 'fi']],
    ['WiFi', ['wi', 'wifi', 'fi'], ['wi', 'fi']],
    ['WiFi2020', ['wi', 'wifi', 'fi', '2020'], ['wi', 'fi', '2020']],
    ['WiFi-Net2', ['wi', 'wifinet', 'fi', 'net', '2'], ['wi', 'fi', 'net', '2']],
    [
      'PowerShot SD500',
      ['power', 'powershot', 'shot', 'sd', '500'],
      ['power', 'shot', 'sd', '500'],
    ],
    ['ABCdef', ['abcdef'], ['abcdef']],
    ['500-42', ['500', '50042', '42'], ['500', '42']],
    ['abc123def-ghi', ['abc', '123', 'def', 'defghi', 'ghi'], ['abc', '123', 'def', 'ghi']],
    ['covid-19', ['covid', '19'], ['covid', '19']],
    ["O'Neil's", ['o', 'oneil', 'neil'], ['o', 'neil']],
    ["it's", ['it'], ['it']],
    ["John's-book", ['john', 'johnbook', 'book'], ['john', 'book']],
    ['e-mail a.b.c', ['e', 'email', 'mail', 'a', 'abc', 'b', 'c'], ['e', 'mail', 'a', 'b', 'c']],
    ['(water), "quality"!', ['water', 'qualiti'], ['water', 'qualiti']],
    ['café cafés', ['cafe', 'cafe'], ['cafe', 'cafe']],
    ['Ångström naïve', ['angstrom', 'naiv'], ['angstrom', 'naiv']],
    ['İSTANBUL', ['istanbul'], ['istanbul']],
    ['the and of', ['the', 'and', 'of'], ['the', 'and', 'of']],
    ['--- ... !!', [], []],
    ['', [], []],
    ['tab\there\nnewline', ['tab', 'here', 'newlin'], ['tab', 'here', 'newlin']],
    ['no\u00a0break', ['no', 'nobreak', 'break'], ['no', 'break']],
    ['東京 data', ['東京', 'data'], ['東京', 'data']],
    [
      'http://example.com/data.csv',
      ['http', 'httpexamplecomdatacsv', 'exampl', 'com', 'data', 'csv'],
      ['http', 'exampl', 'com', 'data', 'csv'],
    ],
  ]

  it.each(cases)('analyses %j', (input, index, query) => {
    expect(analyzeIndex(input)).toEqual(index)
    expect(analyzeQuery(input)).toEqual(query)
  })

  it('puts a concatenation at the position of its first part', () => {
    expect(analyzeIndexTokens('wi-fi network')).toEqual([
      { term: 'wi', position: 0 },
      { term: 'wifi', position: 0 },
      { term: 'fi', position: 1 },
      { term: 'network', position: 2 },
    ])
  })

  it('numbers query tokens consecutively so phrases can match adjacent positions', () => {
    expect(analyzeQueryTokens('Wi-Fi network')).toEqual([
      { term: 'wi', position: 0 },
      { term: 'fi', position: 1 },
      { term: 'network', position: 2 },
    ])
  })

  it('leaves a position gap where a word of punctuation was', () => {
    expect(analyzeQueryTokens('water - quality')).toEqual([
      { term: 'water', position: 0 },
      { term: 'qualiti', position: 2 },
    ])
  })
})

describe('analyzeGenericIndex / analyzeGenericQuery (textgen fields)', () => {
  const cases: [string, string[], string[]][] = [
    ['Joe Bloggs', ['joe', 'bloggs'], ['joe', 'bloggs']],
    ['floods', ['floods'], ['floods']],
    ['WiFi', ['wifi'], ['wifi']],
    ['WiFi2020', ['wifi', '2020'], ['wifi', '2020']],
    ['wi-fi', ['wi', 'wifi', 'fi'], ['wi', 'fi']],
    ['café', ['café'], ['café']],
  ]
  it.each(cases)('analyses %j without stemming, case split or folding', (input, index, query) => {
    expect(analyzeGenericIndex(input)).toEqual(index)
    expect(analyzeGenericQuery(input)).toEqual(query)
  })
})

describe('wordDelimiter', () => {
  it('returns a plain word unchanged', () => {
    expect(wordDelimiter('Water', { splitOnCaseChange: true, catenate: true })).toEqual([
      { text: 'Water', catenated: false },
    ])
  })

  it('does not catenate a run of one part, nor across word and number parts', () => {
    expect(wordDelimiter('abc-123', { splitOnCaseChange: true, catenate: true })).toEqual([
      { text: 'abc', catenated: false },
      { text: '123', catenated: false },
    ])
  })
})

describe('multi-term, exact and ngram normalisers', () => {
  it('lower-cases and folds wildcard terms (English), only lower-cases them (textgen)', () => {
    expect(analyzeMultiTerm('Café*')).toBe('cafe*')
    expect(analyzeGenericMultiTerm('Café*')).toBe('café*')
  })

  it.each([
    ['My-Dataset', 'My-Dataset'],
    [true, 'true'],
    [false, 'false'],
    [3, '3'],
    [null, null],
    [undefined, null],
  ])('keeps exact value %j as %j', (input, expected) => {
    expect(exactValue(input)).toBe(expected)
  })

  it('indexes every 2-10 character substring, lower-cased', () => {
    expect(ngramIndex('AbCd')).toEqual(['ab', 'abc', 'abcd', 'bc', 'bcd', 'cd'])
    expect(ngramIndex('abcdefghijkl')).toContain('abcdefghij')
    expect(ngramIndex('abcdefghijkl')).not.toContain('abcdefghijk')
    expect(ngramQuery('Water  Quality')).toEqual(['water', 'quality'])
  })
})

describe('foldToAscii / lowerCase / splitWhitespace', () => {
  it.each([
    ['café', 'cafe'],
    ['Ærø', 'AEro'],
    ['straße', 'strasse'],
    ['łódź', 'lodz'],
    ['ﬁle', 'file'],
    ['Ｗａｔｅｒ', 'Water'],
    ['Œuvre', 'OEuvre'],
    ['東京', '東京'],
    ['한국어', '한국어'],
    ['かが', 'かが'],
    ['plain', 'plain'],
  ])('folds %j to %j', (input, expected) => {
    expect(foldToAscii(input)).toBe(expected)
  })

  it('lower-cases code point by code point', () => {
    expect(lowerCase('ÀÉÎ İ Σ')).toBe('àéî i σ')
  })

  it('splits on Java whitespace but not on no-break spaces', () => {
    expect(splitWhitespace(' a\tb\nc\u3000d\u00a0e ')).toEqual(['a', 'b', 'c', 'd\u00a0e'])
  })
})
