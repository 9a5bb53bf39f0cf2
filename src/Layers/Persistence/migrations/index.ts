import { Migrator } from "effect/sql"
import m0001 from "./0001_hotel_and_inventory.js"
import m0002 from "./0002_quotes.js"
import m0003 from "./0003_reservations.js"
import m0004 from "./0004_outbox.js"
import m0005 from "./0005_housekeeping.js"
import m0006 from "./0006_trace_context.js"
import m0007 from "./0007_business_limits.js"
import m0008 from "./0008_app_secret_and_retention.js"
import m0009 from "./0009_promo_codes.js"
import m0010 from "./0010_channel.js"
import m0011 from "./0011_reservation_feed.js"
import m0012 from "./0012_bounds.js"
import m0013 from "./0013_channel_knowledge.js"
import m0014 from "./0014_intent_limit.js"
import m0015 from "./0015_stay_changes_counted.js"
import m0016 from "./0016_channel_received_at.js"
import m0017 from "./0017_quote_responses_as_text.js"
import m0018 from "./0018_nights_by_date.js"
import m0019 from "./0019_quote_responses_unparsed.js"

/** Every migration by its id, in order; a new one is a new file and a new line here. */
export const migrationFiles = {
  "0001_hotel_and_inventory": m0001,
  "0002_quotes": m0002,
  "0003_reservations": m0003,
  "0004_outbox": m0004,
  "0005_housekeeping": m0005,
  "0006_trace_context": m0006,
  "0007_business_limits": m0007,
  "0008_app_secret_and_retention": m0008,
  "0009_promo_codes": m0009,
  "0010_channel": m0010,
  "0011_reservation_feed": m0011,
  "0012_bounds": m0012,
  "0013_channel_knowledge": m0013,
  "0014_intent_limit": m0014,
  "0015_stay_changes_counted": m0015,
  "0016_channel_received_at": m0016,
  "0017_quote_responses_as_text": m0017,
  "0018_nights_by_date": m0018,
  "0019_quote_responses_unparsed": m0019
}

export const migrations = Migrator.fromRecord(migrationFiles)
