// A request's time budget, checked cooperatively by the loops of a search.
// In workerd the clock stands still while a request computes (it moves on I/O), so there the
// platform's CPU limit is what stops a runaway request; on Node this budget does.

/** A search stopped at its deadline. */
export class SearchTimeout extends Error {
  constructor() {
    super('Search took too long')
  }
}

/** Counts work and compares the clock every 1,024 steps (reading the clock costs more than a step). */
export class Budget {
  private steps = 0
  constructor(readonly deadline: number) {}
  /** One unit of work: throws SearchTimeout once the deadline has passed. */
  tick(): void {
    if ((++this.steps & 1023) === 0) this.check()
  }
  check(): void {
    if (Date.now() > this.deadline) throw new SearchTimeout()
  }
  /** `test`, counting each call. */
  counted<T>(test: (x: T) => boolean): (x: T) => boolean {
    return (x) => {
      this.tick()
      return test(x)
    }
  }
}

/** A budget that never runs out. */
export const UNLIMITED = new Budget(Infinity)
