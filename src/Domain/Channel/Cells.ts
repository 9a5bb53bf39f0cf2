import { type AriUpdate, CHANNEL_FIELDS, type ChannelField } from "./Message.js"

/* The cell model: per room type and night, each field's value and the as_of that set it. */

/** What the hotel's systems set for one field of a room type's night, and when they computed it (epoch ms); null: never set. */
export interface Cell<A> {
  readonly value: A | null
  readonly as_of: number | null
}

/** The value a field holds, as an update sets it (`null`, which clears it, apart). */
export type ChannelValue<F extends ChannelField> = Exclude<AriUpdate[F], null | undefined>

/** Every field the hotel's systems set for one room type and night, one cell per field of `channelFieldSchemas`. */
export type ChannelCells = { readonly [F in ChannelField]: Cell<ChannelValue<F>> }

const unset: Cell<never> = { value: null, as_of: null }
export const noCells: ChannelCells = Object.fromEntries(CHANNEL_FIELDS.map((field) => [field, unset])) as Record<ChannelField, Cell<never>>
