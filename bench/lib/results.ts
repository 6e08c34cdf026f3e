// A benchmark's figures saved as bench/results/<name>-latest.json, with the date and the machine.
import { mkdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'results')

/** Writes `figures` (plus date and machine) to bench/results/<name>-latest.json and returns them. */
export function saveResults<T extends object>(name: string, figures: T) {
  const out = { date: new Date().toISOString(), ...figures, machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version } }
  const file = join(RESULTS_DIR, `${name}-latest.json`)
  mkdirSync(RESULTS_DIR, { recursive: true })
  writeFileSync(file, JSON.stringify(out, null, 2) + '\n')
  console.log(`figures written to ${file}`)
  return out
}
