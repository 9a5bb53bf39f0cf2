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
 * Nights whose `booked_since` counts fewer rooms than the completed reservations that took them at
 * or after the hotel's figure (a room neither the figure nor this service counts: sold twice), or
 * more than are booked. Counting more is allowed: a room counted twice waits for the next figure.
 */
export const UNDERCOUNTED_SINCE = `
  WITH since AS (
    SELECT n.room_type_id, n.night, coalesce(sum((room->>'quantity')::int), 0)::int AS rooms
    FROM inventory_nights n
    LEFT JOIN reservations r ON r.status = 'GUEST_COMPLETED' AND r.checkin <= n.night AND r.checkout > n.night
      AND r.nights_taken_at >= n.rooms_to_sell_as_of
    LEFT JOIN LATERAL jsonb_array_elements(r.rooms) AS room ON room->>'room_type_id' = n.room_type_id
    WHERE n.rooms_to_sell_as_of IS NOT NULL
    GROUP BY n.room_type_id, n.night
  )
  SELECT n.room_type_id, n.night, n.booked, n.booked_since, s.rooms AS taken_since
  FROM inventory_nights n JOIN since s ON s.room_type_id = n.room_type_id AND s.night = n.night
  WHERE n.booked_since < s.rooms OR n.booked_since > n.booked`
