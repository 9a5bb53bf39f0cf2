import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { GUEST_PAGE_CSP } from "../../src/Api/Handlers/GuestPages.js"
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

  it.effect("every module a page loads, and every module those import, is served as JavaScript under the same policy", () =>
    Effect.gen(function*() {
      const served = new Set<string>()
      const pending = ["/complete", "/manage"]
      while (pending.length > 0) {
        const path = pending.pop()!
        const response = yield* get(path)
        expect([path, response.status]).toEqual([path, 200])
        expect(response.headers["content-security-policy"]).toBe(GUEST_PAGE_CSP)
        if (path.startsWith("/assets/")) {
          expect([path, response.headers["content-type"]]).toEqual([path, "text/javascript; charset=utf-8"])
        }
        // a page's modules are its language's (/assets/en/…); a module's imports are beside it
        const loaded = [...response.text.matchAll(/(?:src|href)="(\/assets\/(?:\w+\/)?[\w-]+\.js)"|from "\.\/([\w-]+\.js)"/g)]
          .map(([, asset, module]) => asset ?? new URL(module!, `http://service${path}`).pathname)
        for (const next of loaded.filter((module) => !served.has(module))) {
          served.add(next)
          pending.push(next)
        }
      }
      expect(served.size).toBeGreaterThan(5)
    }))
})
