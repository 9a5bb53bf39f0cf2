// Types of offers-app-model.js for its unit tests (test/Pages/OffersAppModel.test.ts); the app uses the .js.
import type { MultiRoomQuoteResponse } from "../src/Domain/Quote.js"

export interface ToolResult {
  readonly isError?: boolean
  readonly structuredContent?: unknown
  readonly content?: ReadonlyArray<{ readonly type: string; readonly text?: string }>
}
export interface RoomTypeView { readonly id: string; readonly name: string; readonly description: string | null }
export declare const quoteOf: (result: ToolResult | null | undefined) => MultiRoomQuoteResponse | null
export declare const namedRooms: (
  quote: MultiRoomQuoteResponse,
  roomTypes: ReadonlyArray<RoomTypeView>
) => Array<MultiRoomQuoteResponse["rooms"][number] & { readonly room_name: string }>
export declare const offerGroupsOf: (
  quote: MultiRoomQuoteResponse,
  roomTypes: ReadonlyArray<RoomTypeView>
) => Array<{ readonly type: RoomTypeView; readonly quote: MultiRoomQuoteResponse }>
export declare const appLanguage: (toolArguments: unknown, hostLocale: string | undefined, languages: ReadonlyArray<string>) => string
export declare const intentArguments: (
  quote: MultiRoomQuoteResponse,
  offer: MultiRoomQuoteResponse["package_offers"][number],
  language: string
) => { quote_id: string; package_code: string; language: string; idempotency_key: string }
export declare const intentOutcome: (
  result: ToolResult | null | undefined
) => { readonly continueUrl: string; readonly expiresAt: string } | { readonly stale: true } | { readonly failed: true }
