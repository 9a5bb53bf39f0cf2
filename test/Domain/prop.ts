import { it } from "@effect/vitest"
import fc from "fast-check"

// @effect/vitest 4's `it.prop` takes Schemas and effect's own Arbitrary: these properties keep their
// fast-check arbitraries, run as the `it.prop` of @effect/vitest 3 ran them (fast-check's defaults,
// e.g. 100 runs, unless `fastCheck` says otherwise).

type Arbitraries = ReadonlyArray<fc.Arbitrary<unknown>> | { readonly [K in string]: fc.Arbitrary<unknown> }

type Values<Arbs extends Arbitraries> = { -readonly [K in keyof Arbs]: Arbs[K] extends fc.Arbitrary<infer A> ? A : never }

interface Options<Arbs extends Arbitraries> {
  /** As fast-check takes them; `examples` lists values as the test function receives them. */
  readonly fastCheck?: Omit<fc.Parameters<[Values<Arbs>]>, "examples"> & { readonly examples?: ReadonlyArray<Values<Arbs>> }
}

/** A property of values drawn from a tuple of arbitraries (`[a, b]`) or a record of them (`{ a, b }`). */
export const prop = <const Arbs extends Arbitraries>(
  name: string,
  arbitraries: Arbs,
  self: (values: Values<Arbs>) => void,
  options?: Options<Arbs>
) =>
  it(name, () => {
    const values = (Array.isArray(arbitraries)
      ? fc.tuple(...arbitraries)
      : fc.record(arbitraries as { readonly [K in string]: fc.Arbitrary<unknown> })) as fc.Arbitrary<Values<Arbs>>
    const { examples, ...parameters } = options?.fastCheck ?? {}
    fc.assert(fc.property(values, self), { ...parameters, examples: examples?.map((example) => [example] as [Values<Arbs>]) ?? [] })
  })
