// What `npm start` runs after the build, read from package.json, so that the benchmark and the
// entry test start the server exactly as users do (same flags, same environment).
import { readFileSync } from 'node:fs'

const ENTRY = 'dist/runtime/node.mjs'

/**
 * The start script's last command as `spawn(process.execPath, args, { env })` takes it: leading
 * `NAME=value` words become `env`; `entry` replaces the bundle's path when given.
 */
export function startCommand(entry?: string): { env: Record<string, string>; args: string[] } {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    scripts: Record<string, string>
  }
  const words = pkg.scripts.start!.split('&&').pop()!.trim().split(/\s+/)
  const env: Record<string, string> = {}
  for (let m; (m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(words[0] ?? '')); words.shift()) env[m[1]!] = m[2]!
  if (words.shift() !== 'node' || !words.includes(ENTRY))
    throw new Error(`package.json start script should end with "node ... ${ENTRY}": ${pkg.scripts.start}`)
  return { env, args: words.map((w) => (w === ENTRY && entry ? entry : w)) }
}
