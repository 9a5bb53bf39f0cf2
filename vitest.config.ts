import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // finds Chromium for test/Browser, or says in one line why those tests are skipped
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // two cores: one worker per core keeps database tests from starving each other
    maxWorkers: 2,
    pool: "forks"
  }
})
