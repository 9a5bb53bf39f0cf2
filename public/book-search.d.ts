// Types of book-search.js for its unit tests (test/Pages/BookSearch.test.ts); the page uses the .js.
export interface RoomGuests { readonly adults: number; readonly children_ages: ReadonlyArray<number>; readonly room_type_id: string | null }
export interface Search {
  readonly checkin: string | null
  readonly checkout: string | null
  readonly rooms: ReadonlyArray<RoomGuests>
  readonly room_type_id: string | null
  readonly package_code: string | null
  readonly promo: string
  readonly ready: boolean
}
export interface SearchLimits {
  readonly maxNights: number
  readonly roomsPerRequest: number
  readonly adultsPerRoom: number
  readonly defaultAdults: number
  readonly childrenPerRoom: number
  readonly maxChildAge: number
  readonly promoMaxLength: number
}
export declare const addDays: (iso: string, days: number) => string
export declare const nightsBetween: (checkin: string, checkout: string) => number | null
export declare const isDate: (iso: string) => boolean
export declare const parseAges: (text: string, limits: SearchLimits) => Array<number> | null
export declare function parseSearch(params: URLSearchParams, limits: SearchLimits): { search: Search; errors: Array<string> }
export declare function searchParams(search: Search, extra?: Record<string, string | null>): URLSearchParams
export declare const isMixed: (search: Search) => boolean
export declare const quotedTypes: (search: Search, typeIds: ReadonlyArray<string>) => Array<Array<string>>
export declare function roomRequests(search: Search, typeIds: string | ReadonlyArray<string>): Array<{ room_type_id: string; quantity: number; adults: number; children_ages: ReadonlyArray<number> }>
