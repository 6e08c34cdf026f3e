// A load that cannot go on: its message is what xloader_status reports.

export class LoadError extends Error {
  override name = 'LoadError'
}
