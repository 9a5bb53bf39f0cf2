// npm run hotel:import [FILE]: validates a hotel definition file and imports it into the
// database (DATABASE_URL, or the embedded one in DATA_DIR), replacing the hotel there.
import { Effect, Layer } from "effect"
import * as path from "node:path"
import { readHotelFile } from "../Layers/Persistence/HotelFile.js"
import { runEntry } from "../Layers/Platform/Entry.js"
import { HotelRepo } from "../Layers/Persistence/HotelRepo.js"
import { CommandDatabaseLive } from "../Layers/Persistence/Migrations.js"
import { AppConfig } from "../Layers/Platform/AppConfig.js"

const program = Effect.gen(function*() {
  const config = yield* AppConfig
  const file = process.argv[2] === undefined ? config.hotelFile : path.resolve(process.argv[2])
  const hotel = yield* readHotelFile(file)
  yield* (yield* HotelRepo).replace(hotel)
  yield* Effect.logInfo(`imported ${hotel.name} (${hotel.room_types.length} room types) from ${file}`)
})

runEntry(program.pipe(
  Effect.provide(HotelRepo.layer.pipe(Layer.provideMerge(CommandDatabaseLive)))
))
