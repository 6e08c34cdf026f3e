// The data dict: what every action, route and model helper receives as its raw input.

/** The data dict as it arrived: JSON body, form fields or query string. Untrusted. */
export type DataDict = Record<string, unknown>
