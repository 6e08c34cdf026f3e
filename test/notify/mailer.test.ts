// The Mailer: CKAN's headers sent through nodemailer to a real SMTP server on a free port, and its failures.
import type { AddressInfo } from 'node:net'
import { createServer, type Socket } from 'node:net'
import { SMTPServer, type SMTPServerOptions } from 'smtp-server'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load'
import {
  composeMail,
  mailSettings,
  MailerException,
  MailerNotConfigured,
  mailUser,
  notConfiguredMailer,
  type MailSettings,
} from '../../src/notify/mailer'
import { nodeMailer, parseSmtpServer, smtpMailer } from '../../src/runtime/node-mailer'

interface Received {
  from: string | false
  to: string[]
  user?: string
  secure: boolean
  raw: string
}

const servers: SMTPServer[] = []

/** A real SMTP server on 127.0.0.1 and a free port; what it receives lands in `received`. */
async function startServer(options: SMTPServerOptions = {}) {
  const received: Received[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    ...options,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom && session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
          secure: session.secure,
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as AddressInfo).port
  return { received, server: `127.0.0.1:${port}`, port }
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))))
})

/** Headers of a raw message (unfolded, names lower-cased; the first of repeated ones). */
function headersOf(raw: string): Record<string, string> {
  const head = raw.split('\r\n\r\n')[0]!.replace(/\r\n[ \t]+/g, ' ')
  const out: Record<string, string> = {}
  for (const line of head.split('\r\n')) {
    const i = line.indexOf(':')
    const name = line.slice(0, i).toLowerCase()
    if (!(name in out)) out[name] = line.slice(i + 1).trim()
  }
  return out
}

/** RFC 2047 encoded words (as nodemailer writes non-ASCII headers) back to text. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_, enc: string, text: string) =>
      enc.toLowerCase() === 'b'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          ).toString('utf8'),
    )
}

/** A text part's content, quoted-printable decoded when so marked. */
function bodyOf(raw: string): string {
  const [head, ...rest] = raw.split('\r\n\r\n')
  const body = rest.join('\r\n\r\n')
  if (!/quoted-printable/i.test(head!)) return body
  const bytes = body
    .replace(/=\r\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
  return Buffer.from(bytes, 'latin1').toString('utf8')
}

const settings = (server: string, more: Partial<MailSettings> = {}): MailSettings => ({
  server,
  starttls: false,
  mailFrom: 'noreply@example.org',
  siteTitle: 'Open Data Portal',
  ...more,
})

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const port = (s.address() as AddressInfo).port
  await new Promise<void>((r) => s.close(() => r()))
  return port
}

describe('nodeMailer', () => {
  it('sends CKAN headers and the body to the configured SMTP server', async () => {
    const smtp = await startServer()
    const config = loadConfig({
      'smtp.server': smtp.server,
      'smtp.mail_from': 'ckan@example.org',
      'smtp.reply_to': 'help@example.org',
      'service.site_title': 'Open Data Portal',
    })
    await nodeMailer(config).send({
      to: { name: 'Joe Bloggs', email: 'joe@example.com' },
      subject: 'Reset your password',
      body: 'Hello Joe,\n\nFollow this link to reset your password.\n',
      headers: { 'X-Custom': 'yes' },
    })
    expect(smtp.received).toHaveLength(1)
    const msg = smtp.received[0]!
    expect(msg.from).toBe('ckan@example.org')
    expect(msg.to).toEqual(['joe@example.com'])
    expect(msg.secure).toBe(false)
    const h = headersOf(msg.raw)
    expect(h.from).toBe('Open Data Portal <ckan@example.org>')
    expect(h.to).toBe('Joe Bloggs <joe@example.com>')
    expect(h.subject).toBe('Reset your password')
    expect(h['reply-to']).toBe('help@example.org')
    expect(h['x-mailer']).toBe('CKAN 2.9.11')
    expect(h['x-custom']).toBe('yes')
    expect(Date.parse(h.date!)).toBeGreaterThan(Date.now() - 60_000)
    expect(h['content-type']).toMatch(/^text\/plain; charset=utf-8/)
    expect(bodyOf(msg.raw)).toBe('Hello Joe,\r\n\r\nFollow this link to reset your password.\r\n')
  })

  it('sends an HTML alternative and non-ASCII text intact', async () => {
    const smtp = await startServer()
    await smtpMailer(settings(smtp.server, { siteTitle: 'Données ouvertes' })).send({
      to: 'zoe@example.com',
      subject: 'Jeu de données « Qualité de l’air » mis à jour',
      body: 'Le jeu de données a changé.',
      html: '<p>Le jeu de données a <b>changé</b>.</p>',
    })
    const raw = smtp.received[0]!.raw
    const h = headersOf(raw)
    expect(decodeWords(h.subject!)).toBe('Jeu de données « Qualité de l’air » mis à jour')
    expect(decodeWords(h.from!)).toBe('Données ouvertes <noreply@example.org>')
    expect(h['content-type']).toMatch(/^multipart\/alternative; boundary=/)
    const boundary = /boundary="?([^";]+)"?/.exec(h['content-type']!)![1]!
    const parts = raw
      .split(`--${boundary}`)
      .slice(1, -1)
      .map((p) => p.replace(/^\r\n/, '').replace(/\r\n$/, ''))
    expect(parts.map((p) => headersOf(p)['content-type'])).toEqual([
      'text/plain; charset=utf-8',
      'text/html; charset=utf-8',
    ])
    expect(bodyOf(parts[0]!)).toBe('Le jeu de données a changé.')
    expect(bodyOf(parts[1]!)).toBe('<p>Le jeu de données a <b>changé</b>.</p>')
  })

  it('logs in with smtp.user and smtp.password', async () => {
    const smtp = await startServer({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, cb) {
        if (auth.username === 'mailer' && auth.password === 's3cret') cb(null, { user: 'mailer' })
        else cb(new Error('Invalid username or password'))
      },
    })
    await smtpMailer(settings(smtp.server, { user: 'mailer', password: 's3cret' })).send({
      to: 'a@example.com',
      subject: 's',
      body: 'b',
    })
    expect(smtp.received.map((m) => m.user)).toEqual(['mailer'])
    const wrong = smtpMailer(settings(smtp.server, { user: 'mailer', password: 'nope' })).send({
      to: 'a@example.com',
      subject: 's',
      body: 'b',
    })
    await expect(wrong).rejects.toThrow(MailerException)
    await expect(wrong).rejects.toThrow(/Invalid username or password/)
    expect(smtp.received).toHaveLength(1)
  })

  it('upgrades with STARTTLS when smtp.starttls is on', async () => {
    const smtp = await startServer({ disabledCommands: [] })
    await smtpMailer(settings(smtp.server, { starttls: true }), {
      tls: { rejectUnauthorized: false },
    }).send({
      to: 'a@example.com',
      subject: 'over TLS',
      body: 'b',
    })
    expect(smtp.received.map((m) => m.secure)).toEqual([true])
  })

  it('stays in plain SMTP without smtp.starttls even when the server offers it', async () => {
    const smtp = await startServer({ disabledCommands: [] })
    await smtpMailer(settings(smtp.server)).send({ to: 'a@example.com', subject: 's', body: 'b' })
    expect(smtp.received.map((m) => m.secure)).toEqual([false])
  })

  it('fails when smtp.starttls is on and the server does not offer it', async () => {
    const smtp = await startServer()
    const send = smtpMailer(settings(smtp.server, { starttls: true })).send({
      to: 'a@example.com',
      subject: 's',
      body: 'b',
    })
    await expect(send).rejects.toThrow(MailerException)
    expect(smtp.received).toHaveLength(0)
  })

  it('surfaces a refused recipient with the server answer', async () => {
    const smtp = await startServer({
      onRcptTo(address, _session, cb) {
        if (address.address.endsWith('@blocked.example')) {
          const err = new Error('Mailbox unavailable') as Error & { responseCode: number }
          err.responseCode = 550
          return cb(err)
        }
        cb()
      },
    })
    const send = smtpMailer(settings(smtp.server)).send({
      to: 'x@blocked.example',
      subject: 's',
      body: 'b',
    })
    await expect(send).rejects.toThrow(MailerException)
    await expect(send).rejects.toThrow(/550 Mailbox unavailable/)
    await expect(send).rejects.toHaveProperty('cause.responseCode', 550)
    expect(smtp.received).toHaveLength(0)
  })

  it('surfaces a server that cannot be reached, naming smtp.server', async () => {
    const port = await closedPort()
    const send = smtpMailer(settings(`127.0.0.1:${port}`)).send({
      to: 'a@example.com',
      subject: 's',
      body: 'b',
    })
    await expect(send).rejects.toThrow(MailerException)
    await expect(send).rejects.toThrow(`SMTP server could not be connected to: "127.0.0.1:${port}"`)
  })

  it('surfaces a server that never greets, after the greeting time limit', async () => {
    const sockets = new Set<Socket>()
    const silent = createServer((s) => sockets.add(s)) // accepts and says nothing
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
    try {
      const port = (silent.address() as AddressInfo).port
      const started = Date.now()
      const send = smtpMailer(settings(`127.0.0.1:${port}`), { greetingTimeoutMs: 300 }).send({
        to: 'a@example.com',
        subject: 's',
        body: 'b',
      })
      await expect(send).rejects.toThrow(MailerException)
      expect(Date.now() - started).toBeLessThan(5000)
    } finally {
      for (const s of sockets) s.destroy()
      await new Promise<void>((r) => silent.close(() => r()))
    }
  })

  it('refuses header injection before connecting', async () => {
    const smtp = await startServer()
    const mailer = smtpMailer(settings(smtp.server))
    await expect(
      mailer.send({ to: 'a@example.com', subject: 'hi\r\nBcc: victim@example.com', body: 'b' }),
    ).rejects.toThrow(TypeError)
    await expect(
      mailer.send({
        to: 'a@example.com',
        subject: 's',
        body: 'b',
        headers: { 'X-A': 'x\nBcc: v@example.com' },
      }),
    ).rejects.toThrow(TypeError)
    await expect(
      mailer.send({ to: 'a@example.com>\r\nRCPT TO:<b@example.com', subject: 's', body: 'b' }),
    ).rejects.toThrow('Invalid recipient address')
    await expect(
      mailer.send({
        to: 'a@example.com',
        subject: 's',
        body: 'b',
        headers: { Bcc: 'v@example.com' },
      }),
    ).rejects.toThrow('Header Bcc cannot be set by the caller')
    expect(smtp.received).toHaveLength(0)
  })

  it('is the not-configured mailer without smtp.server', async () => {
    const send = nodeMailer(loadConfig({ 'smtp.mail_from': 'a@example.org' })).send({
      to: 'a@example.com',
      subject: 's',
      body: 'b',
    })
    await expect(send).rejects.toThrow(MailerNotConfigured)
    await expect(send).rejects.toThrow('Mail server is not configured (smtp.server)')
  })

  it('refuses to send without smtp.mail_from, or with smtp.user but no smtp.password', async () => {
    const smtp = await startServer()
    const noFrom = smtpMailer(settings(smtp.server, { mailFrom: undefined })).send({
      to: 'a@example.com',
      subject: 's',
      body: 'b',
    })
    await expect(noFrom).rejects.toThrow('Mail server is not configured (smtp.mail_from)')
    const noPassword = smtpMailer(settings(smtp.server, { user: 'u' })).send({
      to: 'a@example.com',
      subject: 's',
      body: 'b',
    })
    await expect(noPassword).rejects.toThrow('Mail server is not configured (smtp.password)')
    expect(smtp.received).toHaveLength(0)
  })

  it('reads the SMTP_* environment spelling of the options', async () => {
    const smtp = await startServer()
    const config = loadConfig({
      SMTP__SERVER: smtp.server,
      SMTP__MAIL_FROM: 'env@example.org',
      SMTP__STARTTLS: 'false',
    })
    expect(mailSettings(config)).toMatchObject({
      server: smtp.server,
      mailFrom: 'env@example.org',
      starttls: false,
    })
    await nodeMailer(config).send({ to: 'a@example.com', subject: 's', body: 'b' })
    expect(smtp.received.map((m) => m.from)).toEqual(['env@example.org'])
  })
})

describe('parseSmtpServer', () => {
  it('reads host, host:port and [v6]:port with port 25 by default', () => {
    expect(parseSmtpServer('mail.example.org')).toEqual({ host: 'mail.example.org', port: 25 })
    expect(parseSmtpServer('mail.example.org:587')).toEqual({ host: 'mail.example.org', port: 587 })
    expect(parseSmtpServer('[::1]:2525')).toEqual({ host: '::1', port: 2525 })
  })

  it('refuses what is not a host and port', () => {
    for (const bad of ['', 'host:', 'host:99999', 'host:0', 'a:b:c', 'host:port'])
      expect(() => parseSmtpServer(bad), bad).toThrow(MailerException)
  })
})

describe('notConfiguredMailer', () => {
  it('throws MailerNotConfigured with the missing setting', async () => {
    await expect(
      notConfiguredMailer().send({ to: 'a@example.com', subject: 's', body: 'b' }),
    ).rejects.toThrow(new MailerNotConfigured('smtp.server'))
    const e = await notConfiguredMailer()
      .send({ to: 'a@example.com', subject: 's', body: 'b' })
      .catch((err: unknown) => err)
    expect(e).toBeInstanceOf(Error)
    expect((e as Error).message).toBe('Mail server is not configured (smtp.server)')
  })
})

describe('composeMail', () => {
  const base = settings('x', { replyTo: 'config@example.org' })

  it('lets a Reply-To header win over smtp.reply_to (as CKAN does)', () => {
    const mail = composeMail(base, {
      to: 'a@example.com',
      subject: 's',
      body: 'b',
      headers: { 'Reply-To': 'own@example.org' },
    })
    expect(mail.replyTo).toBe('own@example.org')
    expect(mail.headers).toEqual({ 'X-Mailer': 'CKAN 2.9.11' })
    expect(composeMail(base, { to: 'a@example.com', subject: 's', body: 'b' }).replyTo).toBe(
      'config@example.org',
    )
  })

  it('refuses malformed header names and addresses', () => {
    expect(() =>
      composeMail(base, {
        to: 'a@example.com',
        subject: 's',
        body: 'b',
        headers: { 'X Bad': 'v' },
      }),
    ).toThrow('Invalid header name')
    expect(() => composeMail(base, { to: 'not-an-address', subject: 's', body: 'b' })).toThrow(
      'Invalid recipient address',
    )
    expect(() =>
      composeMail({ ...base, mailFrom: 'a b@c' }, { to: 'a@example.com', subject: 's', body: 'b' }),
    ).toThrow('Invalid sender address')
  })
})

describe('mailUser', () => {
  it('addresses the user by full name, else by user name', async () => {
    const smtp = await startServer()
    const mailer = smtpMailer(settings(smtp.server))
    await mailUser(
      mailer,
      { name: 'joe', fullname: 'Joe Bloggs', email: 'joe@example.com' },
      { subject: 's', body: 'b' },
    )
    await mailUser(
      mailer,
      { name: 'ann', fullname: '', email: 'ann@example.com' },
      { subject: 's', body: 'b' },
    )
    expect(smtp.received.map((m) => headersOf(m.raw).to)).toEqual([
      'Joe Bloggs <joe@example.com>',
      'ann <ann@example.com>',
    ])
  })

  it("refuses a user without an e-mail address with CKAN's message", async () => {
    const mailer = notConfiguredMailer()
    await expect(
      mailUser(mailer, { name: 'joe', email: null }, { subject: 's', body: 'b' }),
    ).rejects.toThrow(new MailerException('No recipient email address available!'))
  })
})
