/**
 * The address the limits per client count a request under (requests a minute, completions an
 * hour): the connection's peer, unless the peer is one of the hotel's own reverse proxies
 * (`TRUSTED_PROXIES`). Then `X-Forwarded-For`, to which each proxy appends the address it got the
 * request from, is read from the right, past every trusted proxy, to the first address none of
 * them vouches for; what stands left of it was written by the client and is never believed.
 */

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/
const IPV6 = /^[0-9a-f]*:[0-9a-f:.]*$/

/** An address in one spelling: lower case, and an IPv4 address as a dual-stack socket writes it (`::ffff:a.b.c.d`) plainly. */
export const plainAddress = (address: string): string => {
  const lower = address.toLowerCase()
  return lower.startsWith("::ffff:") && IPV4.test(lower.slice(7)) ? lower.slice(7) : lower
}

/** Hops of `X-Forwarded-For` read at most, from the right: a chain of the hotel's own proxies is short. */
const MAX_HOPS = 16

export const clientAddressOf = (peer: string, forwardedFor: string | undefined, trustedProxies: ReadonlySet<string>): string => {
  let client = plainAddress(peer)
  if (forwardedFor === undefined || !trustedProxies.has(client)) return client
  for (const hop of forwardedFor.split(",").slice(-MAX_HOPS).reverse()) {
    const address = plainAddress(hop.trim())
    // a hop that is no address: the last proxy's word is all there is to go on
    if (!IPV4.test(address) && !IPV6.test(address)) return client
    client = address
    if (!trustedProxies.has(address)) return address
  }
  return client
}
