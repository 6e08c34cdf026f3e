// drizzle-kit settings: generate SQL migrations from src/db/schema.ts into drizzle/.
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'turso',
  schema: './src/db/schema.ts',
  out: './drizzle',
  dbCredentials: {
    url: process.env.DATABASE_URL ?? 'file:./data/catalogue.db',
    // Turso and sqld with auth refuse a migration without it
    authToken: process.env.DATABASE_AUTH_TOKEN,
  },
  // DataStore and search tables are created at run time; never treat them as drift.
  tablesFilter: ['!ds_*', '!_*'],
})
