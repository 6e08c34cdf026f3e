// The data dict of an action call, below every layer that reads one.
/** The data dict as it arrived: JSON body, form fields or query string. Untrusted. */
export type DataDict = Record<string, unknown>
