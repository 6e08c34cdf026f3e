// How e-mail leaves the catalogue: the Mailer port, CKAN's message headers, and the not-configured mailer.
import type { Config } from '../config/load'

export interface Recipient {
  /** Display name (CKAN: the user's display_name). */
  name?: string
  email: string
}

export interface MailMessage {
  to: string | Recipient
  subject: string
  /** Plain-text body. */
  body: string
  /** HTML alternative of the body. */
  html?: string
  /** Extra headers; they cannot replace From, To, Subject or Date. */
  headers?: Record<string, string>
}

export interface Mailer {
  /** Sends one message; rejects with MailerException (or MailerNotConfigured) when it was not sent. */
  send(message: MailMessage): Promise<void>
}

/** No mail server is configured: the setting that is missing is named in the message. */
export class MailerNotConfigured extends Error {
  constructor(readonly setting = 'smtp.server') {
    super(`Mail server is not configured (${setting})`)
  }
}

/** ckan: MailerException, a message that could not be sent (connection, login, refusal). */
export class MailerException extends Error {}

/** The mailer of a deployment without e-mail: every send fails with MailerNotConfigured. */
export function notConfiguredMailer(setting?: string): Mailer {
  return {
    async send() {
      throw new MailerNotConfigured(setting)
    },
  }
}

/** The mail settings of a Config (CKAN's smtp.* keys). */
export interface MailSettings {
  /** host or host:port; undefined when e-mail is off. */
  server?: string
  starttls: boolean
  user?: string
  password?: string
  mailFrom?: string
  replyTo?: string
  /** The sender's display name (ckan: the site title). */
  siteTitle: string
}

export function mailSettings(config: Config): MailSettings {
  const opt = (key: string) => config.str(key) || undefined
  return {
    server: opt('smtp.server'),
    starttls: config.bool('smtp.starttls'),
    user: opt('smtp.user'),
    password: opt('smtp.password'),
    mailFrom: opt('smtp.mail_from'),
    replyTo: opt('smtp.reply_to'),
    siteTitle: config.str('service.site_title'),
  }
}

export interface Address {
  name: string
  address: string
}

/** A message with every header decided, ready for a transport. */
export interface ComposedMail {
  from: Address
  to: Address
  replyTo?: string
  subject: string
  text: string
  html?: string
  /** The extra headers, X-Mailer included. */
  headers: Record<string, string>
  /** SMTP envelope: MAIL FROM and RCPT TO. */
  envelope: { from: string; to: string[] }
}

// ckan: X-Mailer "CKAN <version>", the version status_show reports
const X_MAILER = 'CKAN 2.9.11'
const RESERVED = new Set(['from', 'to', 'cc', 'bcc', 'subject', 'date', 'sender', 'message-id'])
const LINE_BREAK = /[\r\n]/
const HEADER_NAME = /^[!-9;-~]+$/ // RFC 5322 field name: printable ASCII but ':'
// Not a full RFC 5322 parser: one @, no spaces, brackets or line breaks (they end up in SMTP commands).
const EMAIL = /^[^\s<>@,;"]+@[^\s<>@,;"]+$/

function checkAddress(email: string, what: string): string {
  if (!EMAIL.test(email)) throw new TypeError(`Invalid ${what} address ${JSON.stringify(email)}`)
  return email
}

function checkLine(value: string, what: string): string {
  if (LINE_BREAK.test(value)) throw new TypeError(`Line break in ${what}`)
  return value
}

/**
 * CKAN's message (ckan/lib/mailer.py `_mail_recipient`): From is the site title with
 * smtp.mail_from, To the recipient's name and address, Reply-To from a header or else
 * smtp.reply_to, X-Mailer "CKAN <version>". Refuses line breaks in headers (header injection)
 * and malformed addresses with a TypeError.
 * @throws MailerNotConfigured without smtp.mail_from
 */
export function composeMail(settings: MailSettings, message: MailMessage): ComposedMail {
  if (!settings.mailFrom) throw new MailerNotConfigured('smtp.mail_from')
  const from = checkAddress(settings.mailFrom, 'sender')
  const to = typeof message.to === 'string' ? { email: message.to } : message.to
  checkAddress(to.email, 'recipient')
  const headers: Record<string, string> = { 'X-Mailer': X_MAILER }
  let replyTo = settings.replyTo
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    if (!HEADER_NAME.test(name)) throw new TypeError(`Invalid header name ${JSON.stringify(name)}`)
    checkLine(value, `header ${name}`)
    const lower = name.toLowerCase()
    if (RESERVED.has(lower)) throw new TypeError(`Header ${name} cannot be set by the caller`)
    // ckan: a Reply-To header given by the caller wins over smtp.reply_to
    if (lower === 'reply-to') replyTo = value
    else headers[name] = value
  }
  return {
    from: { name: checkLine(settings.siteTitle, 'the site title'), address: from },
    to: { name: checkLine(to.name ?? '', 'the recipient name'), address: to.email },
    ...(replyTo ? { replyTo: checkLine(replyTo, 'Reply-To') } : {}),
    subject: checkLine(message.subject, 'the subject'),
    text: message.body,
    ...(message.html !== undefined ? { html: message.html } : {}),
    headers,
    envelope: { from, to: [to.email] },
  }
}

/** The user fields mailUser reads. */
export interface MailableUser {
  name: string
  fullname?: string | null
  email?: string | null
}

/**
 * ckan: mail_user, e-mail to a user under their display name (full name, else user name).
 * @throws MailerException when the user has no e-mail address
 */
export async function mailUser(
  mailer: Mailer,
  user: MailableUser,
  message: Omit<MailMessage, 'to'>,
): Promise<void> {
  if (!user.email) throw new MailerException('No recipient email address available!')
  await mailer.send({ ...message, to: { name: user.fullname || user.name, email: user.email } })
}
