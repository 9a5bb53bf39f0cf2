import { describe, expect, it } from "@effect/vitest"
import { clientAddressOf, plainAddress } from "../../src/Domain/ClientAddress.js"

const proxies = new Set(["10.0.0.1", "10.0.0.2"])

describe("the client address the limits count", () => {
  it("is the peer's when the peer is no trusted proxy, whatever X-Forwarded-For says", () => {
    expect(clientAddressOf("198.51.100.9", "203.0.113.1", proxies)).toBe("198.51.100.9")
    expect(clientAddressOf("198.51.100.9", undefined, new Set())).toBe("198.51.100.9")
  })

  it("behind trusted proxies, is the right-most address none of them vouches for", () => {
    expect(clientAddressOf("10.0.0.1", "198.51.100.9", proxies)).toBe("198.51.100.9")
    // the client wrote 203.0.113.1 itself: never believed
    expect(clientAddressOf("10.0.0.1", "203.0.113.1, 198.51.100.9, 10.0.0.2", proxies)).toBe("198.51.100.9")
    expect(clientAddressOf("10.0.0.1", "2001:DB8::7", proxies)).toBe("2001:db8::7")
  })

  it("falls back to the last trusted hop when the header ends, or holds something that is no address", () => {
    expect(clientAddressOf("10.0.0.1", undefined, proxies)).toBe("10.0.0.1")
    expect(clientAddressOf("10.0.0.1", "10.0.0.2", proxies)).toBe("10.0.0.2")
    expect(clientAddressOf("10.0.0.1", "198.51.100.9, evil", proxies)).toBe("10.0.0.1")
    expect(clientAddressOf("10.0.0.1", "x".repeat(10_000), proxies)).toBe("10.0.0.1")
  })

  it("counts an IPv4 address as one, however a dual-stack socket writes it", () => {
    expect(plainAddress("::ffff:10.0.0.1")).toBe("10.0.0.1")
    expect(clientAddressOf("::ffff:10.0.0.1", "::FFFF:198.51.100.9", proxies)).toBe("198.51.100.9")
  })
})
