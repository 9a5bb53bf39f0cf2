import { randomFillSync } from "node:crypto"

const ID_BYTES = 15

// `randomBytes` asks the system for entropy on every call, a cost on every quote's path. Ids
// draw from a pool refilled 4 KiB at a time instead, as `crypto.randomUUID` does; every byte
// serves one id only.
const pool = Buffer.alloc(4096)
let used = pool.length

/** The next `count` bytes of the pool (at most 4 KiB), refilled first when fewer are left. */
const draw = (count: number): { readonly start: number; readonly end: number } => {
  if (used + count > pool.length) {
    randomFillSync(pool)
    used = 0
  }
  const start = used
  used += count
  return { start, end: used }
}

/** `prefix` then 15 random bytes (120 bits) in base64url: 20 characters. */
export const randomId = (prefix: string): string => {
  const { end, start } = draw(ID_BYTES)
  return prefix + pool.toString("base64url", start, end)
}

/** `count` random bytes of their own (a copy: the pool is refilled under them). */
export const randomBytes = (count: number): Uint8Array => {
  const { end, start } = draw(count)
  return Uint8Array.from(pool.subarray(start, end))
}
