// Node: the Mailer over SMTP (nodemailer), configured by CKAN's smtp.* options.
import type { Transporter } from 'nodemailer'
import type { Config } from '../config/load'
import {
  composeMail,
  mailSettings,
  MailerException,
  MailerNotConfigured,
  notConfiguredMailer,
  type Mailer,
  type MailSettings,
} from '../notify/mailer'

export interface SmtpOptions {
  /** Time limits in ms: connecting, the server's greeting, and socket inactivity. */
  connectionTimeoutMs?: number
  greetingTimeoutMs?: number
  socketTimeoutMs?: number
  /** TLS settings for STARTTLS, e.g. a private CA (`ca`), or `rejectUnauthorized: false` in tests. */
  tls?: { rejectUnauthorized?: boolean; ca?: string | string[]; servername?: string }
}

/** smtp.server as CKAN (Python's smtplib) reads it: `host`, `host:port` or `[v6]:port`; port 25. */
export function parseSmtpServer(server: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(server.trim())
  const port = Number(m?.[3] ?? 25)
  if (!m || port < 1 || port > 65535)
    throw new MailerException(`Invalid smtp.server ${JSON.stringify(server)}`)
  return { host: (m[1] ?? m[2])!, port }
}

/** Errors of nodemailer that mean the server was never reached or the connection broke. */
const CONNECTION_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED'])

/**
 * Sends each message over a new SMTP connection, as CKAN does: plain SMTP unless smtp.starttls
 * (then STARTTLS is required, and a server without it is an error), and a login when smtp.user
 * is set. Failures reject with MailerException (the nodemailer error as `cause`).
 */
export function smtpMailer(settings: MailSettings, opts: SmtpOptions = {}): Mailer {
  if (!settings.server) return notConfiguredMailer('smtp.server')
  const server = settings.server
  const { host, port } = parseSmtpServer(server)
  // nodemailer is loaded on the first message (2 MB a process that sends none would carry)
  let transport: Transporter | undefined
  const options = {
    host,
    port,
    secure: false,
    requireTLS: settings.starttls,
    // ckan: no TLS at all unless smtp.starttls (an untrusted certificate would fail otherwise)
    ignoreTLS: !settings.starttls,
    ...(settings.user ? { auth: { user: settings.user, pass: settings.password ?? '' } } : {}),
    connectionTimeout: opts.connectionTimeoutMs ?? 10_000,
    greetingTimeout: opts.greetingTimeoutMs ?? 10_000,
    socketTimeout: opts.socketTimeoutMs ?? 60_000,
    ...(opts.tls ? { tls: opts.tls } : {}),
  }
  return {
    async send(message) {
      // ckan: "If smtp.user is configured then smtp.password must be configured as well."
      if (settings.user && !settings.password) throw new MailerNotConfigured('smtp.password')
      const mail = composeMail(settings, message)
      try {
        transport ??= (await import('nodemailer')).default.createTransport(options)
        await transport.sendMail({
          from: mail.from,
          to: mail.to,
          ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
          subject: mail.subject,
          text: mail.text,
          ...(mail.html !== undefined ? { html: mail.html } : {}),
          headers: mail.headers,
          envelope: mail.envelope,
          xMailer: false, // ours is in mail.headers
          disableFileAccess: true,
          disableUrlAccess: true,
        })
      } catch (e) {
        const err = e as Error & { code?: string }
        const text = CONNECTION_CODES.has(err.code ?? '')
          ? `SMTP server could not be connected to: "${server}" ${err.message}`
          : err.message
        throw new MailerException(text, { cause: e })
      }
    },
  }
}

/** The mailer a Node process uses: SMTP when smtp.server is set, else the not-configured one. */
export function nodeMailer(config: Config, opts: SmtpOptions = {}): Mailer {
  return smtpMailer(mailSettings(config), opts)
}
