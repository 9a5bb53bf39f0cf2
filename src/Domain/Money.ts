import { Schema, SchemaTransformation } from "effect"

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

/** Major units on the wire (euros, two decimals), cents inside. */
export const majorUnitsAsCents = SchemaTransformation.transform({
  decode: (n: number) => Math.round(n * 100),
  encode: (c: number) => c / 100
})

/** Money on the wire: a JSON number with at most two decimals, exact in cents inside. */
export const Amount = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: MAX_AMOUNT }))
  // named on the wire side: the document shows the JSON number
  .annotate({ identifier: "Amount", description: "An amount of money in major units, two decimals" })
  .pipe(Schema.decodeTo(Cents, majorUnitsAsCents))

/**
 * An Amount field with a description of its own, beside the shared Amount's in the document: the
 * description goes on the wire side, which is what the document shows.
 */
export const describedAmount = (description: string) => Schema.flip(Schema.flip(Amount).annotateKey({ description }))

/** ISO 4217 currency code. */
export const Currency = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[A-Z]{3}$/u)),
  Schema.annotate({ identifier: "Currency", description: "ISO 4217 currency code", examples: ["EUR"] })
)
