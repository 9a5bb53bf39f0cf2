import { Schema } from "effect"

/** Money inside the service: an integer number of minor units (cents). */
export const Cents = Schema.Int.pipe(Schema.brand("Cents"))
export type Cents = typeof Cents.Type

export const cents = (n: number): Cents => n as Cents

export const sum = (amounts: Iterable<number>): Cents => {
  let total = 0
  for (const amount of amounts) total += amount
  return total as Cents
}

/** `percent` % of an amount, rounded half up to the cent (amounts are never negative). */
export const percentOf = (amount: number, percent: number): Cents =>
  Math.floor((amount * percent + 50) / 100) as Cents

/** The most an amount on the wire may be: far above any stay the hotel sells, and exact in cents. */
export const MAX_AMOUNT = 10_000_000

/** Money on the wire: a JSON number with at most two decimals, exact in cents inside. */
export const Amount = Schema.transform(
  Schema.Number.pipe(Schema.between(0, MAX_AMOUNT)).annotations({ description: "An amount of money in major units, two decimals" }),
  Cents,
  {
    strict: true,
    decode: (n) => Math.round(n * 100) as Cents,
    encode: (c) => c / 100
  }
).annotations({ identifier: "Amount" })

/** ISO 4217 currency code. */
export const Currency = Schema.String.pipe(
  Schema.pattern(/^[A-Z]{3}$/),
  Schema.annotations({ identifier: "Currency", description: "ISO 4217 currency code", examples: ["EUR"] })
)
