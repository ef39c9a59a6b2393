/**
 * The layers of the service (docs/architecture.md), checked in `npm test`:
 *   edges (src/http, src/cli, src/demo) -> modules (src/modules/<capability>) -> processors,
 *   platform and domain. Dependencies point down only.
 */
const EDGES = '^src/(http|cli|demo)/';
const REPOSITORY = '^src/modules/[^/]+/[a-z-]*repository\\.ts$';
const DATABASE_INTERNALS = '^src/platform/database/(drizzle|rows|schema/)|^src/platform/database/schema\\.ts$';

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Files that import each other in a loop.', from: {}, to: { circular: true } },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'The domain holds pure rules: it imports nothing of the service but other domain files.',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'platform-knows-no-payments',
      severity: 'error',
      comment: 'Platform helpers know nothing of payments: no domain, module, processor or edge.',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/platform/' },
    },
    {
      name: 'processors-below-modules',
      severity: 'error',
      comment: 'Processor adapters speak to acquirers; they use the domain and the platform only.',
      from: { path: '^src/processors/' },
      to: { path: '^src/', pathNot: '^src/(processors|domain|platform)/' },
    },
    {
      name: 'modules-below-edges',
      severity: 'error',
      comment: 'A module never imports an edge nor the composition root.',
      from: { path: '^src/modules/' },
      to: { path: '^src/(http|cli|demo)/|^src/(main|app|composition|config)\\.ts$' },
    },
    {
      name: 'no-reaching-into-another-module-repository',
      severity: 'error',
      comment: "A module calls another module's service, never its repository.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: REPOSITORY, pathNot: '^src/modules/$1/' },
    },
    {
      name: 'sql-only-in-repositories',
      severity: 'error',
      comment: 'Only repositories (and the database platform) use the query builder, the schema or a driver.',
      from: { path: '^src/', pathNot: `${REPOSITORY}|^src/platform/database/` },
      to: { path: `${DATABASE_INTERNALS}|^node_modules/(drizzle-orm|pg|pg-copy-streams|@electric-sql/pglite)/` },
    },
    {
      name: 'edges-use-services',
      severity: 'error',
      comment: 'Edges call module services and the error vocabulary: never the database, a repository or the vault internals.',
      from: { path: EDGES },
      to: { path: `^src/platform/database/|${REPOSITORY}|^src/modules/vault/(vault|keys|cipher|key-file)\\.ts$|^src/processors/` },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    exclude: { path: '^src/http/paypage/assets/' },
  },
};
