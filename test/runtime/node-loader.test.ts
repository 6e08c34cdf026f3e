// The Node loader's XLSX reader (runtime/node-loader.ts) against exceljs 4.4's streaming race
// (exceljs#3064): an exceljs-written workbook (worksheets stored before its shared strings, styles
// and workbook entries) read many times over: every read gives the first worksheet's rows, strings
// and dates (through the streaming reader ~3 % of reads threw, gave objects for strings or numbers
// for dates; a small file is now read whole).
import ExcelJS from 'exceljs'
import { describe, expect, it } from 'vitest'
import { nodeLoaderPorts } from '../../src/runtime/node-loader'

describe('XLSX first worksheet', () => {
  it('reads an exceljs-written two-sheet workbook every time', async () => {
    const wb = new ExcelJS.Workbook()
    wb.addWorksheet('First').addRow(['a', 'b', 'when'])
    wb.getWorksheet('First')!.addRow([1, 2, new Date(Date.UTC(2024, 0, 31))])
    wb.addWorksheet('Second').addRow(['c', 'd'])
    const bytes = new Uint8Array(await wb.xlsx.writeBuffer())
    const { spreadsheets } = nodeLoaderPorts()
    const failures: string[] = []
    for (let i = 0; i < 600; i++) {
      try {
        const rows = []
        for await (const row of spreadsheets!.firstSheetRows(new Response(bytes).body!)) rows.push(row)
        // strings (shared strings), numbers, and a date (told apart by its style)
        if (JSON.stringify(rows) !== JSON.stringify([['a', 'b', 'when'], [1, 2, '2024-01-31T00:00:00.000Z']]) || !(rows[1]![2] instanceof Date))
          failures.push(JSON.stringify(rows))
      } catch (e) {
        failures.push(String(e))
      }
    }
    expect(failures).toEqual([])
  }, 120_000)
})
