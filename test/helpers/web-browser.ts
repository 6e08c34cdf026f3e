// A tiny browser for page tests: keeps cookies, does not follow redirects, sends forms, and finds
// a page's CSRF token.

type Fetcher = (path: string, init?: RequestInit) => Response | Promise<Response>

export function browser(fetcher: Fetcher) {
  const jar = new Map<string, string>()
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const i = pair!.indexOf('=')
      if (/Max-Age=0/.test(c)) jar.delete(pair!.slice(0, i))
      else jar.set(pair!.slice(0, i), pair!.slice(i + 1))
    }
    return res
  }
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
  return {
    jar,
    async get(path: string) {
      const res = keep(await fetcher(path, { headers: { cookie: cookie() }, redirect: 'manual' }))
      return { res, html: await res.text() }
    },
    /** Posts `fields` form-encoded, or a FormData as multipart. */
    async post(path: string, fields: Record<string, string> | FormData, headers: Record<string, string> = {}) {
      const multipart = fields instanceof FormData
      const res = keep(
        await fetcher(path, {
          method: 'POST',
          redirect: 'manual',
          body: multipart ? fields : new URLSearchParams(fields).toString(),
          headers: { ...(multipart ? {} : { 'content-type': 'application/x-www-form-urlencoded' }), cookie: cookie(), ...headers },
        }),
      )
      return { res, html: await res.text() }
    },
  }
}

export type Browser = ReturnType<typeof browser>

export const csrfOf = (html: string) => /name="_csrf_token" value="([0-9a-f]{64})"/.exec(html)![1]!

/** Signs `b` in with a name and password through the sign-in form. */
export async function signIn(b: Browser, login: string, password: string) {
  const csrf = csrfOf((await b.get('/user/login')).html)
  const r = await b.post('/user/login', { _csrf_token: csrf, login, password })
  if (r.res.status !== 303) throw new Error(`sign-in failed: ${r.res.status}`)
}
