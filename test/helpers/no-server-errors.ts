// Set up before every test file: no request of the file may end in an unexpected exception
// (a 500 from http/internal-error.ts). A test that means to cause one resets the counter itself.
import { afterAll, expect } from 'vitest'
import { serverErrors } from '../../src/http/internal-error'
import { removeTempDirs } from './temp-dirs'

// registered first, so it runs after the file's own afterAll hooks (which close the databases)
afterAll(() => removeTempDirs())

afterAll(() => {
  expect(serverErrors.count, 'requests that ended in 500 Internal Server Error (see the log)').toBe(0)
})
