/** Letters and digits that cannot be mistaken for each other when read aloud or typed (no 0/O, 1/I/L). */
const ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
const LENGTH = 6

/** A short reservation number, e.g. `BR-7K3Q9X`, from random bytes (one per character). */
export const reservationNumber = (prefix: string, random: Uint8Array): string =>
  `${prefix}-${Array.from(random.subarray(0, LENGTH), (byte) => ALPHABET[byte % ALPHABET.length]).join("")}`

export const RESERVATION_NUMBER_RANDOM_BYTES = LENGTH
