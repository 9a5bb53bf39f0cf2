/**
 * The no-overbooking guarantee as SQL, for the race tests and the bench: each query answers the
 * nights that break it, so an empty answer is the guarantee kept.
 */

/** Nights holding more rooms than their type has. */
export const OVERBOOKED_NIGHTS = `
  SELECT n.room_type_id, n.night, n.booked FROM inventory_nights n JOIN room_types rt ON rt.id = n.room_type_id
  WHERE n.booked > rt.inventory`

/** Nights whose count differs from the rooms of the completed reservations staying then: a room lost or given back twice. */
export const MISCOUNTED_NIGHTS = `
  WITH held AS (
    SELECT room->>'room_type_id' AS room_type_id, night::date AS night, sum((room->>'quantity')::int)::int AS rooms
    FROM reservations r
    CROSS JOIN jsonb_array_elements(r.rooms) AS room
    CROSS JOIN generate_series(r.checkin, r.checkout - 1, interval '1 day') AS night
    WHERE r.status = 'GUEST_COMPLETED'
    GROUP BY 1, 2
  )
  SELECT coalesce(n.room_type_id, h.room_type_id) AS room_type_id, coalesce(n.night, h.night) AS night,
    coalesce(n.booked, 0) AS booked, coalesce(h.rooms, 0) AS held
  FROM inventory_nights n FULL JOIN held h ON h.room_type_id = n.room_type_id AND h.night = n.night
  WHERE coalesce(n.booked, 0) <> coalesce(h.rooms, 0)`

/**
 * Nights whose `booked_since` counts fewer rooms than the completed reservations hold beyond what
 * the night's figure may count them holding (a room neither the figure nor this service counts:
 * sold twice), or more than are booked. Counting more is allowed: a room counted twice waits for
 * the next figure. The rule of docs/decisions.md#what-may-be-sold written again, apart from the service's: per
 * reservation, the fewest rooms of its last change the figure surely has and of every later one.
 */
export const UNDERCOUNTED_SINCE = `
  WITH holding AS (
    SELECT n.room_type_id, n.night, r.id, sum((room->>'quantity')::int)::int AS held,
      n.rooms_to_sell_through AS through, n.rooms_to_sell_acked_by AS acked_by
    FROM inventory_nights n
    JOIN reservations r ON r.status = 'GUEST_COMPLETED' AND r.checkin <= n.night AND r.checkout > n.night
    CROSS JOIN LATERAL jsonb_array_elements(r.rooms) AS room
    WHERE n.rooms_to_sell_as_of IS NOT NULL AND room->>'room_type_id' = n.room_type_id
    GROUP BY n.room_type_id, n.night, r.id, n.rooms_to_sell_through, n.rooms_to_sell_acked_by
  ), counted AS (
    SELECT h.room_type_id, h.night, h.held, coalesce((
      SELECT min(coalesce((
        SELECT sum((line->>'quantity')::int) FROM jsonb_array_elements(c.content->'rooms') AS line
        WHERE c.change <> 'cancelled' AND line->>'room_type_id' = h.room_type_id
          AND (c.content->'stay'->>'checkin')::date <= h.night AND (c.content->'stay'->>'checkout')::date > h.night), 0))
      FROM reservation_changes c
      WHERE c.reservation_id = h.id AND c.seq >= (
        SELECT max(k.seq) FROM reservation_changes k
        WHERE k.reservation_id = h.id AND (k.seq <= h.through OR k.acked_at <= h.acked_by))
    ), 0) AS counted
    FROM holding h
  ), unknown AS (
    SELECT room_type_id, night, sum(greatest(0, held - counted))::int AS rooms FROM counted GROUP BY 1, 2
  )
  SELECT n.room_type_id, n.night, n.booked, n.booked_since, coalesce(u.rooms, 0) AS unknown
  FROM inventory_nights n LEFT JOIN unknown u ON u.room_type_id = n.room_type_id AND u.night = n.night
  WHERE n.rooms_to_sell_as_of IS NOT NULL AND (n.booked_since < coalesce(u.rooms, 0) OR n.booked_since > n.booked)`
