// Types of book-alternatives.js for its unit tests (test/Pages/BookAlternatives.test.ts); the page uses the .js.
export interface Day {
  readonly checkin: string
  readonly checkout: string
  readonly available: boolean
  readonly lowest_total: number | null
  readonly reason: string | null
  readonly min_stay?: number
}
export declare function searchRange(checkin: string, dates: number): { from: string; to: string }
export declare const nearestStays: <D extends Day>(days: ReadonlyArray<D>, checkin: string, count: number) => Array<D>
export declare const shortestAllowed: (days: ReadonlyArray<Day>, nights: number) => number | null
