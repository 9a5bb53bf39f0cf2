import { describe, expect, it } from "@effect/vitest"
import { channelKinds, retryDelayMs } from "../../src/Domain/Outbox.js"

const policy = { maxAttempts: 20, baseDelayMs: 2_000, maxDelayMs: 300_000 }

describe("outbox rules", () => {
  it("backs off exponentially from 2 s, capped at 5 min, with full jitter", () => {
    const ceilings = [1, 2, 3, 8, 9, 19].map((attempt) => retryDelayMs(policy, attempt, 0.999_999))
    expect(ceilings).toEqual([2_000, 4_000, 8_000, 256_000, 300_000, 300_000])
    expect(retryDelayMs(policy, 5, 0)).toBe(0)
    expect(retryDelayMs(policy, 5, 0.5)).toBe(16_000)
  })

  it("email and PMS jobs are two channels", () => {
    expect(channelKinds("email")).toEqual(["confirmation_email", "cancellation_email", "guest_update_email", "stay_change_email"])
    expect(channelKinds("pms")).toEqual(["pms_push", "pms_cancel"])
  })
})
