// Unit tests for Solr date values in queries: instants, NOW, rounding and calendar arithmetic.
import { describe, expect, it } from 'vitest'
import {
  DateMathError,
  isDateField,
  parseDateMath,
  solrDate,
  storedDateMillis,
} from '../../src/search/date-math'

const NOW = new Date('2024-03-15T10:20:30.456Z')

describe('parseDateMath', () => {
  it.each([
    ['NOW', '2024-03-15T10:20:30.456Z'],
    ['NOW/DAY', '2024-03-15T00:00:00.000Z'],
    ['NOW/DATE', '2024-03-15T00:00:00.000Z'],
    ['NOW/HOUR', '2024-03-15T10:00:00.000Z'],
    ['NOW/MINUTE', '2024-03-15T10:20:00.000Z'],
    ['NOW/SECOND', '2024-03-15T10:20:30.000Z'],
    ['NOW/MONTH', '2024-03-01T00:00:00.000Z'],
    ['NOW/YEAR', '2024-01-01T00:00:00.000Z'],
    ['NOW-7DAYS', '2024-03-08T10:20:30.456Z'],
    ['NOW-1DAY', '2024-03-14T10:20:30.456Z'],
    ['NOW+1DAY', '2024-03-16T10:20:30.456Z'],
    ['NOW-6MONTHS', '2023-09-15T10:20:30.456Z'],
    ['NOW-1YEAR/DAY', '2023-03-15T00:00:00.000Z'],
    ['NOW/DAY+1DAY', '2024-03-16T00:00:00.000Z'],
    ['NOW-2HOURS+30MINUTES', '2024-03-15T08:50:30.456Z'],
    ['NOW+10SECONDS-456MILLIS', '2024-03-15T10:20:40.000Z'],
    ['now-1day', '2024-03-14T10:20:30.456Z'],
    ['2020-01-01T00:00:00Z', '2020-01-01T00:00:00.000Z'],
    ['2020-01-01T12:34:56.789Z', '2020-01-01T12:34:56.789Z'],
    ['2020-01-01T12:34:56.123456Z', '2020-01-01T12:34:56.123Z'],
    ['2020-01-01T12:34:56.5Z', '2020-01-01T12:34:56.500Z'],
    ['2020-01-01T00:00:00Z+1MONTH', '2020-02-01T00:00:00.000Z'],
    ['2020-06-15T08:00:00Z/YEAR', '2020-01-01T00:00:00.000Z'],
    ['2020-01-31T00:00:00Z+1MONTH', '2020-02-29T00:00:00.000Z'],
    ['2021-01-31T00:00:00Z+1MONTH', '2021-02-28T00:00:00.000Z'],
    ['2020-02-29T00:00:00Z+1YEAR', '2021-02-28T00:00:00.000Z'],
    ['2020-03-31T00:00:00Z-1MONTH', '2020-02-29T00:00:00.000Z'],
    ['2020-01-01T00:00:00Z-1DAY', '2019-12-31T00:00:00.000Z'],
    ['2020-01-01', '2020-01-01T00:00:00.000Z'],
    ['2020-01-01T10:00', '2020-01-01T10:00:00.000Z'],
    ['2020-01-01T10:00:00', '2020-01-01T10:00:00.000Z'],
    ['0050-01-01T00:00:00Z', '0050-01-01T00:00:00.000Z'],
  ])('resolves %s to %s', (expr, iso) => {
    expect(solrDate(parseDateMath(expr, NOW))).toBe(iso)
  })

  it.each([
    ['yesterday', "Invalid Date String:'yesterday'"],
    ['2020-13-01T00:00:00Z', "Invalid Date String:'2020-13-01T00:00:00Z'"],
    ['2021-02-29T00:00:00Z', "Invalid Date String:'2021-02-29T00:00:00Z'"],
    ['2020-01-01T25:00:00Z', "Invalid Date String:'2020-01-01T25:00:00Z'"],
    ['20200101', "Invalid Date String:'20200101'"],
    ['NOW-1FORTNIGHT', "Invalid Date Math String:'NOW-1FORTNIGHT'"],
    ['NOW-DAY', "Invalid Date Math String:'NOW-DAY'"],
    ['NOW/1DAY', "Invalid Date Math String:'NOW/1DAY'"],
    ['NOW*2', "Invalid Date Math String:'NOW*2'"],
    ['NOW-1', "Invalid Date Math String:'NOW-1'"],
    ['2020-01-01T00:00:00Zjunk', "Invalid Date String:'2020-01-01T00:00:00Zjunk'"],
    ['2020-01-01T00', "Invalid Date String:'2020-01-01T00'"],
    ['2020-01-01T00:00:00Z+1DAYjunk', "Invalid Date Math String:'2020-01-01T00:00:00Z+1DAYjunk'"],
  ])('rejects %s', (expr, message) => {
    expect(() => parseDateMath(expr, NOW)).toThrow(DateMathError)
    expect(() => parseDateMath(expr, NOW)).toThrow(message)
  })
})

describe('storedDateMillis', () => {
  it('reads CKAN timestamps with microseconds, with or without Z', () => {
    const ms = Date.UTC(2020, 0, 2, 3, 4, 5, 123)
    expect(storedDateMillis('2020-01-02T03:04:05.123456')).toBe(ms)
    expect(storedDateMillis('2020-01-02T03:04:05.123456Z')).toBe(ms)
  })

  it.each([['not a date'], ['2020-01-02T03:04:05Z+1DAY'], ['2020-02-30']])(
    'returns null for %j',
    (value) => {
      expect(storedDateMillis(value)).toBeNull()
    },
  )
})

describe('isDateField', () => {
  it.each([
    ['metadata_modified', true],
    ['metadata_created', true],
    ['indexed_ts', true],
    ['release_date', true],
    ['extras_release_date', false],
    ['res_extras_release_date', false],
    ['vocab_date', false],
    ['title', false],
    ['date', false],
  ])('says %s is a date field: %s', (field, expected) => {
    expect(isDateField(field)).toBe(expected)
  })
})
