import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { get } from "../support/flow.js"
import { TestApp } from "../support/TestApp.js"

/** A policy's directives by name: `{ "base-uri": "'none'", … }`. */
const directives = (policy: string) =>
  Object.fromEntries(policy.split(";").map((directive) => directive.trim().split(/\s+/)).map(([name, ...values]) => [name, values.join(" ")]))

layer(TestApp(), { excludeTestServices: true })("guest pages", (it) => {
  for (const path of ["/complete", "/manage", "/assets/guest.js"]) {
    it.effect(`${path}: an injected <base> or form cannot send the page's URLs or the guest's input elsewhere`, () =>
      Effect.gen(function*() {
        const page = yield* get(path)
        expect(page.status).toBe(200)
        expect(directives(page.headers["content-security-policy"]!)).toMatchObject({
          "default-src": "'self'",
          "script-src": "'self'",
          "frame-ancestors": "'none'",
          "base-uri": "'none'",
          "form-action": "'self'"
        })
      }))
  }
})
