// vitest settings: Node pool, one temp database per test file.
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    root: '.',
    include: ['test/**/*.test.ts'],
    // every file ends with no unexpected 500 (http/internal-error.ts counts them)
    setupFiles: ['test/helpers/no-server-errors.ts'],
    testTimeout: 30000,
    hookTimeout: 60000,
    pool: 'forks',
    maxWorkers: 2,
  },
})
