import { Array as Arr, Context, Effect, Layer, Option, Ref, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { NotFound } from "../../Domain/Errors.js"
import { HotelDefinition, type RoomTypeDefinition } from "../../Domain/Hotel.js"
import * as Tracing from "../Platform/Tracing.js"

/** Where the hotel definition lives once imported. */
export class HotelRepo extends Context.Service<HotelRepo, {
  readonly load: Effect.Effect<HotelDefinition, NotFound>
  /** No hotel yet, or one stored in a format older than the current definition schema. */
  readonly needsImport: Effect.Effect<boolean>
  /** Replaces the hotel, its room types and their inventory counts; bookings stay. */
  readonly replace: (hotel: HotelDefinition) => Effect.Effect<void>
}>()("HotelRepo") {
  static readonly layer = Layer.effect(
    HotelRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const findDefinition = SqlSchema.findOneOption({
        Request: Schema.Void,
        Result: Schema.Struct({ definition: HotelDefinition }),
        execute: () => sql`SELECT definition FROM hotel ORDER BY imported_at DESC LIMIT 1`
      })
      const load = findDefinition(undefined).pipe(
        Effect.orDie,
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new NotFound({ message: "no hotel has been imported" })),
          onSome: (row) => Effect.succeed(row.definition)
        })),
        Tracing.withSpan("HotelRepo.load")
      )
      const needsImport = findDefinition(undefined).pipe(
        Effect.map(Option.isNone),
        Effect.catchTag("SchemaError", () => Effect.succeed(true)),
        Effect.orDie,
        Tracing.withSpan("HotelRepo.needsImport")
      )
      const encode = Schema.encodeEffect(HotelDefinition)
      const replace = (hotel: HotelDefinition) =>
        Effect.gen(function*() {
          const definition = yield* encode(hotel)
          yield* sql`DELETE FROM hotel WHERE id <> ${hotel.id}`
          yield* sql`
            INSERT INTO hotel (id, definition, imported_at) VALUES (${hotel.id}, ${JSON.stringify(definition)}::jsonb, now())
            ON CONFLICT (id) DO UPDATE SET definition = EXCLUDED.definition, imported_at = EXCLUDED.imported_at`
          // a hotel has a room type at least (its schema)
          const rows = Arr.map(hotel.room_types as Arr.NonEmptyReadonlyArray<RoomTypeDefinition>, (room, position) => ({
            id: room.id,
            hotel_id: hotel.id,
            position,
            inventory: room.inventory
          }))
          yield* sql`
            INSERT INTO room_types ${sql.insert(rows)}
            ON CONFLICT (id) DO UPDATE SET hotel_id = EXCLUDED.hotel_id, position = EXCLUDED.position,
              inventory = EXCLUDED.inventory`
          yield* sql`DELETE FROM room_types WHERE NOT (id IN ${sql.in(rows.map((r) => r.id))})`
        }).pipe(sql.withTransaction, Effect.orDie, Tracing.withSpan("HotelRepo.replace", { attributes: { hotel: hotel.id } }))
      return { load, needsImport, replace }
    })
  )

  static readonly InMemory = (initial?: HotelDefinition) =>
    Layer.effect(
      HotelRepo,
      Effect.gen(function*() {
        const stored = yield* Ref.make(Option.fromNullishOr(initial))
        return {
          load: Ref.get(stored).pipe(
            Effect.flatMap(Option.match({
              onNone: () => Effect.fail(new NotFound({ message: "no hotel has been imported" })),
              onSome: Effect.succeed
            }))
          ),
          needsImport: Effect.map(Ref.get(stored), Option.isNone),
          replace: (hotel) => Ref.set(stored, Option.some(hotel))
        }
      })
    )
}
