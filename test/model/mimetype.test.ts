// Mimetype guessing: Python's mimetypes.guess_type on a URL, as CKAN uses it.
import { describe, expect, it } from 'vitest'
import { guessMimetype, guessResourceMimetype } from '../../src/model/mimetype'

describe('guessMimetype', () => {
  it.each([
    ['http://e.com/data.csv', 'text/csv'],
    ['http://e.com/data.tsv', 'text/tab-separated-values'],
    ['http://e.com/data.json', 'application/json'],
    ['http://e.com/data.geojson', 'application/geo+json'],
    ['http://e.com/data.xml', 'application/xml'],
    ['http://e.com/data.xls', 'application/vnd.ms-excel'],
    ['http://e.com/data.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ['http://e.com/data.ods', 'application/vnd.oasis.opendocument.spreadsheet'],
    ['http://e.com/doc.pdf', 'application/pdf'],
    ['http://e.com/img.png', 'image/png'],
    ['http://e.com/img.jpg', 'image/jpeg'],
    ['http://e.com/img.jpeg', 'image/jpeg'],
    ['http://e.com/img.gif', 'image/gif'],
    ['http://e.com/img.svg', 'image/svg+xml'],
    ['http://e.com/index.html', 'text/html'],
    ['http://e.com/index.htm', 'text/html'],
    ['http://e.com/notes.txt', 'text/plain'],
    ['http://e.com/all.zip', 'application/zip'],
    ['http://e.com/data.parquet', 'application/vnd.apache.parquet'],
    ['http://e.com/graph.rdf', 'application/rdf+xml'],
    ['http://e.com/graph.ttl', 'text/turtle'],
  ])('guesses %s as %s', (url, type) => {
    expect(guessMimetype(url)).toBe(type)
  })

  it('ignores case, looks through compression and expands short names', () => {
    expect(guessMimetype('http://e.com/IMG.PNG')).toBe('image/png')
    expect(guessMimetype('http://e.com/data.csv.gz')).toBe('text/csv')
    expect(guessMimetype('http://e.com/data.json.bz2')).toBe('application/json')
    expect(guessMimetype('http://e.com/all.tgz')).toBe('application/x-tar')
    expect(guessMimetype('http://e.com/all.gz')).toBeNull()
  })

  it('finds nothing without a known extension of the last path segment', () => {
    expect(guessMimetype('http://e.com/data')).toBeNull()
    expect(guessMimetype('http://e.com/data.unknownext')).toBeNull()
    expect(guessMimetype('http://e.com.csv/data')).toBeNull()
    expect(guessMimetype('http://e.com/.csv')).toBeNull()
    // ckan: the query string is part of the "extension", so it defeats the guess
    expect(guessMimetype('http://e.com/data.csv?x=1')).toBeNull()
    expect(guessMimetype('data.csv')).toBe('text/csv')
  })
})

describe('guessResourceMimetype', () => {
  it('guesses only for URLs with a path', () => {
    expect(guessResourceMimetype('')).toBeNull()
    expect(guessResourceMimetype('http://example.csv')).toBeNull()
    expect(guessResourceMimetype('http://e.com/')).toBeNull()
    expect(guessResourceMimetype('http://e.com/a/b.csv')).toBe('text/csv')
    expect(guessResourceMimetype('b.csv')).toBe('text/csv')
  })
})
