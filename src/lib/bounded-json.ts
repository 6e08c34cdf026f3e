// JSON text checked before JSON.parse builds anything: nesting depth, members per object or
// array and string length, by one linear scan without recursion (no input can overflow a stack).

export interface JsonLimits {
  maxDepth: number
  maxKeys: number
  maxString: number
}

/** Text past one of the limits (its message names the limit and its option). */
export class JsonLimitError extends Error {}

export const tooDeepText = (l: JsonLimits) =>
  `The request data is nested deeper than ${l.maxDepth} levels (service.max_request_depth)`
export const tooManyKeysText = (l: JsonLimits) =>
  `The request data has more than ${l.maxKeys} keys or items in one object, list or form (service.max_request_keys)`
export const tooLongText = (l: JsonLimits) =>
  `The request data has a value longer than ${l.maxString} characters (service.max_request_string_length)`

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const OPEN_OBJECT = 0x7b
const CLOSE_ARRAY = 0x5d
const CLOSE_OBJECT = 0x7d
const COMMA = 0x2c

/**
 * One pass over JSON text, without recursion: refuses nesting deeper than `maxDepth`, more than
 * `maxKeys` members in one object or array, and strings longer than `maxString` code units.
 * Malformed text is left to JSON.parse (the scan only needs to be right for well-formed text).
 */
export function checkJsonShape(text: string, l: JsonLimits) {
  const counts = new Array<number>(Math.min(l.maxDepth, 1024) + 1).fill(0)
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      // the string's closing quote: the next quote not escaped (an even run of backslashes before
      // it), found by indexOf: most strings have no escapes, and the scan then costs little
      const start = i
      for (let from = i + 1; ; ) {
        const q = text.indexOf('"', from)
        if (q < 0) {
          i = text.length
          break
        }
        let b = q - 1
        while (b > start && text.charCodeAt(b) === BACKSLASH) b--
        if ((q - 1 - b) % 2 === 0) {
          i = q
          break
        }
        from = q + 1
      }
      if (i - start - 1 > l.maxString) throw new JsonLimitError(tooLongText(l))
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > l.maxDepth) throw new JsonLimitError(tooDeepText(l))
      counts[depth] = 1
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth > 0) depth--
    } else if (c === COMMA && depth > 0) {
      if (++counts[depth]! > l.maxKeys) throw new JsonLimitError(tooManyKeysText(l))
    }
  }
}

/** The limits of JSON text inside a parameter (a `filters` or `facet.field` given as a string). */
export const INNER_JSON_LIMITS: JsonLimits = {
  maxDepth: 64,
  maxKeys: 10000,
  maxString: 10 * 1024 * 1024,
}

/**
 * JSON.parse for JSON text found inside a parameter: past the limits it throws a SyntaxError
 * (the caller's "cannot parse" field error) before anything deep is built.
 */
export function parseBoundedJson(text: string): unknown {
  try {
    checkJsonShape(text, INNER_JSON_LIMITS)
  } catch (e) {
    if (e instanceof JsonLimitError) throw new SyntaxError(e.message)
    throw e
  }
  return JSON.parse(text)
}
