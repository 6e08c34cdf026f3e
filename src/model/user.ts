// User reads, user dicts and the shared validation of user_create / user_update input.
import { and, eq, inArray, ne, or, sql } from 'drizzle-orm'
import { apiAtLeast, passwordMinLength } from '../config/api-compat'
import { pyStr } from '../lib/py-repr'
import { packages, users } from '../db/schema'
import type { ActionContext, Deps, UserRow } from '../context'
import type { DataDict } from '../data-dict'
import { NotFound, ValidationError } from '../errors'
import { hashPassword } from '../lib/password'
import { checkName, FieldFail, isEmail, MISSING, toBool } from '../validation/fields'
import { md5Hex } from '../lib/hex'
import { parseBoundedJson } from '../lib/bounded-json'

export type { UserRow }
export type UserDict = Record<string, unknown> & { id: string; name: string }

/** Name of the site user (service.site_id, with CKAN's fallback). */
export const siteUserName = (ctx: Pick<ActionContext, 'config'>) =>
  ctx.config.str('service.site_id') || 'ckan_site_user'

/** The user with this id or name (ids tried first), any state, or undefined. Not memoised. */
export async function findUser(ctx: ActionContext, idOrName: string): Promise<UserRow | undefined> {
  const rows = await ctx.db
    .select()
    .from(users)
    .where(or(eq(users.id, idOrName), eq(users.name, idOrName)))
    .limit(2)
  return rows.find((r) => r.id === idOrName) ?? rows[0]
}

/**
 * The user named by a raw id/name parameter (deleted users included); memoised per request.
 * Unknown → NotFound(`notFound`). Absent → ValidationError `{id: ['Missing value']}`, or
 * NotFound too when `missingIsNotFound` (user_show).
 */
export function loadUser(
  ctx: ActionContext,
  idOrName: unknown,
  opts: { notFound?: string; missingIsNotFound?: boolean } = {},
): Promise<UserRow> {
  if (idOrName === undefined || idOrName === null || typeof idOrName === 'object') {
    if (opts.missingIsNotFound) throw new NotFound(opts.notFound)
    throw new ValidationError({ id: [MISSING] })
  }
  const key = `user:${pyStr(idOrName)}`
  let p = ctx.memo.get(key) as Promise<UserRow> | undefined
  if (!p) {
    p = findUser(ctx, pyStr(idOrName)).then((row) => {
      if (!row) throw new NotFound(opts.notFound)
      return row
    })
    ctx.memo.set(key, p)
    p.catch(() => ctx.memo.delete(key))
  }
  return p
}

/** Forgets what this request memoised about users (after it wrote them). */
export function forgetUsers(ctx: ActionContext) {
  for (const k of [...ctx.memo.keys()]) if (k.startsWith('user:')) ctx.memo.delete(k)
}

/** Whether the caller sees this user's private fields (CKAN: the user themself or a sysadmin). */
/** The active user with this id, or null (the session cookie's user). */
export async function activeUser(deps: Pick<Deps, 'db'>, id: string): Promise<UserRow | null> {
  const [row] = await deps.db.select().from(users).where(eq(users.id, id)).limit(1)
  return row && row.state === 'active' ? row : null
}

/**
 * The user a sign-in or reset form names by user name or e-mail address: an address several
 * accounts share names none of them (the user name must be given then).
 */
export async function userByLogin(deps: Pick<Deps, 'db'>, login: string): Promise<UserRow | undefined> {
  if (!login) return undefined
  const rows = await deps.db.select().from(users).where(or(eq(users.name, login), eq(users.email, login))).limit(2)
  return rows.length === 1 ? rows[0] : rows.find((r) => r.name === login)
}

export const isSelfOrSysadmin = (ctx: ActionContext, row: Pick<UserRow, 'id'>) =>
  !!ctx.user && (ctx.user.sysadmin || ctx.user.id === row.id)

/**
 * Datasets created by each user. ckan: only active public ones, unless `includePrivate`
 * (then every non-deleted one).
 */
export async function createdPackageCounts(
  ctx: ActionContext,
  userIds: string[],
  includePrivate = false,
): Promise<Map<string, number>> {
  const out = new Map<string, number>()
  if (!userIds.length) return out
  const visible = includePrivate
    ? ne(packages.state, 'deleted')
    : and(eq(packages.state, 'active'), eq(packages.private, false))
  const rows = await ctx.db
    .select({ id: packages.creator_user_id, n: sql<number>`count(*)` })
    .from(packages)
    .where(and(inArray(packages.creator_user_id, [...new Set(userIds)]), visible))
    .groupBy(packages.creator_user_id)
  for (const r of rows) if (r.id) out.set(r.id, Number(r.n))
  return out
}

export interface UserDictOptions {
  /**
   * Dict as the user themself sees it: `email` and `apikey` included and private/draft
   * datasets counted. (Without it, email/apikey still appear when the caller is the user or a
   * sysadmin, as CKAN does.)
   */
  includePrivate?: boolean
  /** Never include `email`/`apikey` (e.g. follower lists). */
  publicOnly?: boolean
  /** Sysadmin opt-ins of user_show. The caller must have checked sysadmin rights. */
  includePasswordHash?: boolean
  includePluginExtras?: boolean
}

/** User dicts (catalogue.md §5.1) for several rows, with one count query. */
export async function userDicts(
  ctx: ActionContext,
  rows: UserRow[],
  opts: UserDictOptions = {},
): Promise<UserDict[]> {
  const counts = await createdPackageCounts(
    ctx,
    rows.map((r) => r.id),
    !!opts.includePrivate,
  )
  const siteUrl = ctx.config.str('service.site_url').replace(/\/+$/, '')
  return rows.map((u) => {
    const secrets = !opts.publicOnly && (opts.includePrivate || isSelfOrSysadmin(ctx, u))
    const image = u.image_url
    const d: UserDict = {
      about: u.about,
      activity_streams_email_notifications: u.activity_streams_email_notifications,
      ...(secrets ? { apikey: u.apikey } : {}),
      created: u.created,
      display_name: u.fullname && u.fullname.trim() ? u.fullname : u.name,
      ...(secrets ? { email: u.email } : {}),
      email_hash: md5Hex(u.email ? u.email.trim().toLowerCase() : ''),
      fullname: u.fullname,
      id: u.id,
      // ckan: a relative image_url is an upload under /uploads/user/
      image_display_url:
        image && !image.startsWith('http') ? `${siteUrl}/uploads/user/${image}` : image,
      image_url: image,
      name: u.name,
      number_created_packages: counts.get(u.id) ?? 0,
      state: u.state,
      sysadmin: u.sysadmin,
    }
    if (opts.includePasswordHash) d.password_hash = u.password_hash
    if (opts.includePluginExtras)
      d.plugin_extras = u.plugin_extras ? JSON.parse(u.plugin_extras) : null
    return d
  })
}

export async function userToDict(
  ctx: ActionContext,
  row: UserRow,
  opts: UserDictOptions = {},
): Promise<UserDict> {
  return (await userDicts(ctx, [row], opts))[0]!
}

/** Columns a user_create / user_update writes (only keys that were given). */
export type UserChanges = Partial<
  Pick<
    UserRow,
    | 'name'
    | 'email'
    | 'fullname'
    | 'about'
    | 'image_url'
    | 'activity_streams_email_notifications'
    | 'password_hash'
    | 'sysadmin'
    | 'state'
    | 'plugin_extras'
  >
>

const str = (v: unknown) =>
  typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v)
const absent = (v: unknown) => v === undefined || v === null

/**
 * Validates user_create input (no `existing`) or user_update input (`existing` = the account)
 * as CKAN's user schemas do, including the database checks, and reports every failing field
 * at once. Sysadmin-only keys are dropped silently for other callers. Throws ValidationError.
 */
export async function checkUserInput(
  ctx: ActionContext,
  input: DataDict,
  existing?: UserRow,
  opts: { idError?: string } = {},
): Promise<{ values: UserChanges; pluginExtrasGiven: boolean }> {
  const errors: Record<string, string[]> = {}
  const add = (k: string, msg: string) => (errors[k] ??= []).push(msg)
  // user_create's check of a given id (ckan 2.11), reported with the other fields
  if (opts.idError) add('id', opts.idError)
  const values: UserChanges = {}
  const privileged = !!ctx.user?.sysadmin || !!ctx.ignoreAuth

  // name: required on create; on update it may be sent but not changed (pending accounts aside).
  const name = input.name
  if (!existing || !absent(name)) {
    const checked =
      existing && name === ''
        ? new FieldFail('Must be at least 2 characters long')
        : checkName(name)
    if (checked instanceof FieldFail) checked.msgs.forEach((m) => add('name', m))
    else {
      const holder = await findUser(ctx, checked)
      if (holder && holder.id !== existing?.id) add('name', 'That login name is not available.')
      else if (!existing) values.name = checked
      else if (!holder) {
        // ckan: only a pending account (e.g. an invited user) may still pick its name
        if (existing.state === 'pending') values.name = checked
        else add('name', 'That login name can not be modified.')
      }
    }
  }

  const email = input.email
  if (absent(email) || email === '' || email === false || email === 0) add('email', MISSING)
  else if (typeof email !== 'string' || !isEmail(email))
    add('email', `Email ${str(email)} is not a valid format`)
  else {
    // ckan: 2.9 any account with the address; 2.10 active accounts; 2.11 active, in any case
    const sameAddress = apiAtLeast(ctx.config, '2.11')
      ? sql`lower(${users.email}) = lower(${email})`
      : eq(users.email, email)
    const holders = await ctx.db
      .select({ id: users.id, name: users.name })
      .from(users)
      .where(apiAtLeast(ctx.config, '2.10') ? and(sameAddress, eq(users.state, 'active')) : sameAddress)
    // ckan: the address may stay with the account being saved
    const mine = (h: { id: string; name: string }) =>
      h.id === existing?.id || h.name === input.name || h.name === input.id || h.id === input.id
    if (holders.some((h) => !mine(h)))
      add('email', `The email address '${email}' belongs to a registered user.`)
    else values.email = email
  }

  const password = input.password
  const minLength = passwordMinLength(ctx.config)
  // ckan: user_password_validator lets only an absent key through, so null is not a string either
  if (password !== undefined && typeof password !== 'string')
    add('password', 'Passwords must be strings')
  else if (typeof password === 'string' && password !== '' && password.length < minLength)
    add('password', `Your password must be ${minLength} characters or longer`)
  const hashGiven =
    privileged && typeof input.password_hash === 'string' && input.password_hash !== ''
  if (!existing && !hashGiven && !password) add('password', MISSING)

  if (!absent(input.about)) {
    const about = str(input.about)
    if (about.includes('http://') || about.includes('https://'))
      add(
        'about',
        'Edit not allowed as it looks like spam. Please avoid links in your description.',
      )
    else values.about = about
  }
  if (!absent(input.fullname)) values.fullname = str(input.fullname)
  if (!absent(input.image_url)) values.image_url = str(input.image_url)
  if (!absent(input.activity_streams_email_notifications))
    values.activity_streams_email_notifications = toBool(input.activity_streams_email_notifications)

  let pluginExtrasGiven = false
  if (privileged) {
    if (!absent(input.sysadmin)) values.sysadmin = toBool(input.sysadmin)
    if (!absent(input.state) && input.state !== '') values.state = str(input.state)
    const extras = input.plugin_extras
    if (!absent(extras) && extras !== '') {
      const parsed = typeof extras === 'string' ? tryJson(extras) : extras
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        values.plugin_extras = JSON.stringify(parsed)
        pluginExtrasGiven = true
      } else add('plugin_extras', 'The value should be a valid JSON object')
    }
  }

  if (Object.keys(errors).length) throw new ValidationError(errors)
  if (hashGiven) values.password_hash = input.password_hash as string
  else if (typeof password === 'string' && password !== '')
    values.password_hash = await hashPassword(
      password,
      ctx.config.int('service.auth.password_hash_iterations'),
    )
  return { values, pluginExtrasGiven }
}

function tryJson(s: string): unknown {
  try {
    return parseBoundedJson(s)
  } catch {
    return undefined
  }
}

/** Whether a database error is a UNIQUE constraint failure (a concurrent insert won). */
export const isUniqueViolation = (e: unknown) =>
  /UNIQUE constraint failed/i.test(String((e as Error)?.message ?? e)) ||
  /UNIQUE constraint failed/i.test(String((e as { cause?: Error })?.cause?.message ?? ''))
