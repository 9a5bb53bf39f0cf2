import { Effect, Schema, type SchemaAST } from "effect"

/**
 * A check the JSON Schema cannot state (a real calendar date, at most two decimals): enforced on
 * decoding, left out of the document. Annotations given after it (description, examples, format)
 * land on a schema's last check: its `toJsonSchema` keeps them in the document all the same.
 */
export const rule = <T>(predicate: (input: T) => Schema.FilterOutput, message?: string): SchemaAST.Filter<T> =>
  Schema.makeFilter(predicate, { message, toJsonSchema: () => [{}, true] })

/**
 * A schema with examples written as the code holds values (money in cents) and shown as the wire
 * carries them (money in major units): the document shows examples as they are given.
 */
export const wireExamples = <S extends Schema.Codec<unknown, unknown>>(schema: S, examples: ReadonlyArray<S["Type"]>): S["Rebuild"] =>
  // the encoded values annotate the schema itself: `annotateEncoded` would rebuild (and rename) the schemas inside it
  schema.annotate({ examples: examples.map((example) => Schema.encodeSync(schema)(example) as S["Type"]) })

/**
 * A field the caller may leave out: described as the wire carries it (the document shows the
 * description on the encoded side), and `value()` when it is absent.
 */
export const withDefault = <S extends Schema.Top>(description: string, value: () => S["Type"]) => (self: S) =>
  Schema.withDecodingDefaultTypeKey(Effect.sync(value))(
    // an annotated schema is its own rebuild: the same type, which the generic `Rebuild` cannot show
    Schema.annotateEncoded({ description })(self) as S
  )
