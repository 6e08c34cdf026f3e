// The Node loader's XLSX reader (runtime/node-loader.ts) against exceljs 4.4's streaming race
// (exceljs#3064): an exceljs-written workbook, xl/workbook.xml stored last, read many times over:
// every read gives the first worksheet's rows (without the workaround ~3 % of reads threw).
import ExcelJS from 'exceljs'
import { describe, expect, it } from 'vitest'
import { nodeLoaderPorts } from '../../src/runtime/node-loader'

describe('XLSX first worksheet', () => {
  it('reads an exceljs-written two-sheet workbook every time', async () => {
    const wb = new ExcelJS.Workbook()
    wb.addWorksheet('First').addRow(['a', 'b'])
    wb.getWorksheet('First')!.addRow([1, 2])
    wb.addWorksheet('Second').addRow(['c', 'd'])
    const bytes = new Uint8Array(await wb.xlsx.writeBuffer())
    const { spreadsheets } = nodeLoaderPorts()
    const failures: string[] = []
    for (let i = 0; i < 300; i++) {
      try {
        const rows = []
        for await (const row of spreadsheets.firstSheetRows(new Response(bytes).body!)) rows.push(row)
        if (JSON.stringify(rows) !== JSON.stringify([['a', 'b'], [1, 2]])) failures.push(JSON.stringify(rows))
      } catch (e) {
        failures.push(String(e))
      }
    }
    expect(failures).toEqual([])
  }, 60_000)
})
