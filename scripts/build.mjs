// Compiles the Node server entry to dist/runtime/node.mjs (npm start runs that, not tsx: the
// TypeScript loader alone holds ~65 MB of memory). Dependencies stay in node_modules.
import { build } from 'esbuild'
import { createRequire } from 'node:module'

// An optional argument names another output file (the entry test builds into a temp dir).
const outfile = process.argv[2] ?? 'dist/runtime/node.mjs'

await build({
  entryPoints: ['src/runtime/node.ts'],
  outfile, // two levels below the root, like src/runtime (the migrations path; else MIGRATIONS_DIR)
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  // JSON from packages (the world map's land) goes into the bundle: Node would need an import
  // attribute to load it from node_modules, and the Worker's bundle has it inline too
  plugins: [
    {
      name: 'inline-package-json',
      setup(b) {
        b.onResolve({ filter: /\.json$/ }, (args) =>
          args.path.startsWith('.') || args.path.startsWith('/')
            ? undefined
            : { path: createRequire(`${args.resolveDir}/`).resolve(args.path) },
        )
      },
    },
  ],
})
