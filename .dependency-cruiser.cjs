/**
 * The architecture as checks (`npm run lint`). The layout is the architecture:
 * Domain ← Layers ← Services ← Api ← the composition root (src/Composition.ts) and the entry
 * points (src/main.ts and the service it starts, src/Serve.ts; src/bin). Each rule says, in one line, why it holds.
 * @type {import("dependency-cruiser").IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "A cycle has no bottom: neither module can be read, tested or replaced without the other.",
      severity: "error",
      from: {},
      to: { circular: true }
    },
    {
      name: "domain-imports-nothing-of-ours",
      comment: "The domain is the rules alone: nothing of ours under it, so it is tested without a database, a server or a clock.",
      severity: "error",
      from: { path: "^src/Domain/" },
      to: { path: "^src/", pathNot: "^src/Domain/" }
    },
    {
      name: "domain-uses-only-effect",
      comment: "The domain's one library is effect (schemas, data types): any other package would bring its I/O or its framework in.",
      severity: "error",
      from: { path: "^src/Domain/" },
      to: { dependencyTypes: ["npm", "npm-dev", "npm-optional", "npm-peer", "npm-no-pkg", "npm-unknown"], pathNot: "(^|/)node_modules/effect/" }
    },
    {
      name: "domain-uses-only-pure-built-ins",
      comment: "Rules are pure: no file, network, process, thread or random source from Node in the domain.",
      severity: "error",
      from: { path: "^src/Domain/" },
      to: { dependencyTypes: ["core"], pathNot: "^(node:)?(buffer|path|querystring|string_decoder|url|util)$" }
    },
    {
      name: "channel-message-stands-below-the-channel-rules",
      comment: "A channel field is declared once, in the message's schemas (Domain/Channel/Message.ts): the cells, the merge and the view follow it, never the reverse.",
      severity: "error",
      from: { path: "^src/Domain/Channel/Message\\.ts$" },
      to: { path: "^src/Domain/Channel/" }
    },
    {
      name: "services-never-import-api",
      comment: "A service is the use case, whatever the transport: HTTP, MCP and commands all call it; the contract is the API's.",
      severity: "error",
      from: { path: "^src/Services/" },
      to: { path: "^src/Api/" }
    },
    {
      name: "layers-import-neither-services-nor-api",
      comment: "Repositories and platform pieces sit under the services: they store and connect, the services decide.",
      severity: "error",
      from: { path: "^src/Layers/" },
      to: { path: "^src/(Services|Api)/" }
    },
    {
      name: "platform-imports-no-persistence-or-pdf",
      comment: "Config, ids, tracing and logging are used by every layer, so they stand below all of them.",
      severity: "error",
      from: { path: "^src/Layers/Platform/" },
      to: { path: "^src/Layers/(Persistence|Pdf|EmbeddedDatabase)/" }
    },
    {
      name: "embedded-database-runs-no-sql",
      comment: "The embedded server's room starts, watches and restarts a process: what is asked of the database (its role, its tables) is Persistence's.",
      severity: "error",
      from: { path: "^src/Layers/EmbeddedDatabase/" },
      to: { path: "^src/Layers/(Persistence|Pdf)/|(^|/)node_modules/(effect/dist/sql/|@effect/sql)" }
    },
    {
      name: "api-never-reaches-a-repository",
      comment: "Handlers decode, call one service method and encode: storage is reached through a service, where the rules are.",
      severity: "error",
      from: { path: "^src/Api/" },
      to: { path: "^src/Layers/(Persistence|Pdf|EmbeddedDatabase)/" }
    },
    {
      name: "only-the-entry-points-see-everything",
      comment: "The composition root wires live layers; anything else importing it (or an entry point) would depend on the whole service.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(main\\.ts|Serve\\.ts|bin/)" },
      to: { path: "^src/(Composition|main|Serve)\\.ts$|^src/bin/" }
    }
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"]
    }
  }
}
