// Dependency rules for the monorepo's source files (packages/*/src, apps/*/src;
// not tests, not dist), checked by `pnpm deps:check` in CI. Type-only imports
// count: a cycle through types is still a cycle. Imports of @svc/* resolve to the
// package's src/index.ts (tsconfig.depcruise.json), so the check needs no build.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle among source files, type-only imports included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'mcp-not-http',
      severity: 'error',
      comment: 'Agent tools reach the service verbs, never the HTTP layer.',
      from: { path: '^apps/api/src/mcp/' },
      to: { path: '^apps/api/src/http/' },
    },
    {
      name: 'services-not-transports',
      severity: 'error',
      comment: 'Services and the store know nothing of the transports (HTTP, agent tools, pages).',
      from: { path: '^apps/api/src/(services|store)/' },
      to: { path: '^apps/api/src/(http|mcp|pages)/' },
    },
    {
      name: 'services-not-metrics',
      severity: 'error',
      comment:
        'Services and the store know nothing of the metrics: the metrics observe them through the Observer the services define (services/shared/observer.ts).',
      from: { path: '^apps/api/src/(services|store)/' },
      to: { path: '^apps/api/src/metrics/' },
    },
    {
      name: 'bulk-for-the-bench-only',
      comment:
        "The store's bulk reads and writes (store/bulk.ts) are the bench's, through its entry (src/bench.ts): the service's own code goes through its verbs.",
      severity: 'error',
      from: { path: '^apps/api/src/', pathNot: '^apps/api/src/(bench\\.ts$|store/)' },
      to: { path: '^apps/api/src/store/bulk\\.ts$' },
    },
    {
      name: 'bench-entry-unused',
      severity: 'error',
      comment: 'The bench entry (@svc/api/bench, src/bench.ts) is for the bench alone: no source file imports it.',
      from: { path: '^(packages|apps)/[^/]+/src/' },
      to: { path: '^apps/api/src/bench\\.ts$' },
    },
    {
      name: 'store-not-services',
      severity: 'error',
      comment: 'The store sits below the services and does not call them.',
      from: { path: '^apps/api/src/store/' },
      to: { path: '^apps/api/src/services/' },
    },
    {
      name: 'methodology-standalone',
      severity: 'error',
      comment: 'The engine depends on no other workspace package.',
      from: { path: '^packages/methodology/src/' },
      to: { path: '^(packages|apps)/', pathNot: '^packages/methodology/' },
    },
    {
      name: 'methodology-pure',
      severity: 'error',
      comment: 'The engine is pure: no file system, network or process; node:crypto (hashing) is the one built-in.',
      from: { path: '^packages/methodology/src/' },
      to: { dependencyTypes: ['core'], pathNot: '^crypto$' },
    },
    {
      name: 'contracts-on-methodology-only',
      severity: 'error',
      comment: "The contracts build on the engine's schemas and nothing else of the workspace.",
      from: { path: '^packages/contracts/src/' },
      to: { path: '^(packages|apps)/', pathNot: '^packages/(contracts|methodology)/' },
    },
    {
      name: 'client-loads-nothing',
      severity: 'error',
      comment: 'The client runs in browsers and loads nothing else at run time: only type imports leave it.',
      from: { path: '^packages/client/src/' },
      to: { pathNot: '^packages/client/src/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'client-on-contracts-only',
      severity: 'error',
      comment: "The client's types come from the contracts, not from the engine or the apps.",
      from: { path: '^packages/client/src/' },
      to: { path: '^(packages|apps)/', pathNot: '^packages/(client|contracts)/' },
    },
    {
      name: 'api-not-cli',
      severity: 'error',
      comment: 'The CLI drives the API, never the other way round.',
      from: { path: '^apps/api/src/' },
      to: { path: '^apps/cli/' },
    },
    {
      name: 'workspace-via-entry',
      severity: 'error',
      comment: 'Another workspace package is reached through its entry point (@svc/NAME), never by a path into it.',
      from: { path: '^(packages|apps)/([^/]+)/src/' },
      to: {
        path: '^(packages|apps)/',
        pathNot: ['^$1/$2/', '^(packages|apps)/[^/]+/src/index\\.ts$'],
      },
    },
    {
      name: 'not-to-dev-dep',
      severity: 'error',
      comment: 'Source files load only run-time dependencies; devDependencies are not installed for users.',
      from: { path: '^(packages|apps)/[^/]+/src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-non-package-json',
      severity: 'error',
      comment: "Every npm package a source file imports is declared in its package's package.json.",
      from: { path: '^(packages|apps)/[^/]+/src/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves; an unresolved one would slip past the rules above.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Tests inside src (the scanned folders hold no dist); anchored so that no npm package's files are dropped.
    exclude: {
      path: ['^(packages|apps)/[^/]+/src/.*__tests__/', '^(packages|apps)/[^/]+/src/.*\\.(test|spec)\\.[cm]?[jt]s$'],
    },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.depcruise.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    cache: false,
  },
};
