import { enableCompileCache } from "node:module"

// A start compiles some hundreds of modules, most of its CPU before the first log line. V8's
// compile cache keeps them compiled on disk (in NODE_COMPILE_CACHE, else the system's temporary
// directory), so the next start reads them instead (docs/performance.md). It is enabled before
// any module of the service is loaded, hence the import below; a cache that cannot be written is
// no cache, never a failure.
enableCompileCache()
await import("./Serve.js")
