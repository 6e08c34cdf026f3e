// Notes and descriptions as CKAN renders them: Markdown with raw HTML off (markdown-it escapes it),
// links made from bare URLs, and only http(s)/mailto/relative link targets.
import MarkdownIt from 'markdown-it'

const md = new MarkdownIt({ html: false, linkify: true, typographer: false })
const SAFE_LINK = /^(https?:|mailto:|\/|#|[^:]*$)/i
md.validateLink = (url: string) => SAFE_LINK.test(url.trim())

export function renderMarkdown(text: unknown): string {
  return typeof text === 'string' && text.trim() ? md.render(text) : ''
}
