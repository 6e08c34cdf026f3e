// A real SMTP server for tests (smtp-server on a free loopback port) and a reader of what it got.
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface Received {
  to: string[]
  raw: string
}

/** A real SMTP server on a free port; recipients at refused.example are rejected. */
export async function startSmtp() {
  const received: Received[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, cb) {
      if (address.address.endsWith('@refused.example'))
        return cb(new Error('550 mailbox unavailable'))
      cb()
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        cb()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as AddressInfo).port
  return { server, received, address: `127.0.0.1:${port}` }
}

/** Subject and body of a raw message (quoted-printable decoded). */
export function parseMail(raw: string) {
  const [head, ...rest] = raw.split('\r\n\r\n')
  const headers = head!.replace(/\r\n[ \t]+/g, ' ')
  const subject = /^subject: (.*)$/im.exec(headers)?.[1]
  let body = rest.join('\r\n\r\n')
  if (/quoted-printable/i.test(headers))
    body = Buffer.from(
      body
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
      'latin1',
    ).toString('utf8')
  return { subject, body: body.replace(/\r\n/g, '\n') }
}
