import { randomFillSync } from "node:crypto"

const ID_BYTES = 15

// `randomBytes` asks the system for entropy on every call, a cost on every quote's path. Ids
// draw from a pool refilled 4 KiB at a time instead, as `crypto.randomUUID` does; every byte
// serves one id only.
const pool = Buffer.alloc(4096)
let used = pool.length

/** `prefix` then 15 random bytes (120 bits) in base64url: 20 characters. */
export const randomId = (prefix: string): string => {
  if (used + ID_BYTES > pool.length) {
    randomFillSync(pool)
    used = 0
  }
  const id = prefix + pool.toString("base64url", used, used + ID_BYTES)
  used += ID_BYTES
  return id
}
