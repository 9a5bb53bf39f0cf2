import { describe, expect, it } from "@effect/vitest"
import { randomBytes, randomId } from "../../../src/Layers/Platform/RandomId.js"

describe("randomId", () => {
  it("is the prefix and 20 base64url characters", () => {
    expect(randomId("q_")).toMatch(/^q_[A-Za-z0-9_-]{20}$/)
  })

  it("never repeats, across many refills of its pool", () => {
    // 4 KiB serve 273 ids: 5000 ids refill the pool 18 times
    const ids = Array.from({ length: 5000 }, () => randomId("r_"))
    expect(new Set(ids).size).toBe(ids.length)
    // no id is cut short at the end of the pool
    expect(ids.every((id) => /^r_[A-Za-z0-9_-]{20}$/.test(id))).toBe(true)
  })
})

describe("randomBytes", () => {
  it("draws bytes of their own from the same pool: never the same draw twice, and kept as drawn across refills", () => {
    const first = randomBytes(6)
    const kept = Array.from(first)
    // 6 bytes a draw: 5000 draws refill the 4 KiB pool 7 times, under the first one
    const draws = Array.from({ length: 5000 }, () => Buffer.from(randomBytes(6)).toString("hex"))
    expect(draws.every((hex) => hex.length === 12)).toBe(true)
    expect(new Set(draws).size).toBe(draws.length)
    expect(Array.from(first)).toEqual(kept)
  })
})
