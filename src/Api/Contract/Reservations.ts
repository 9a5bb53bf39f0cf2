import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import {
  CompletionRequest,
  CompletionResponse,
  IntentRequest,
  IntentResponse,
  PublicReservation
} from "../../Domain/Reservation.js"
import { RULES } from "../Handlers/AgentRules.js"
import {
  AvailabilityChangedBody,
  GroupBookingRequiredBody,
  IdempotencyInProgressBody,
  IdempotencyKeyReusedBody,
  PriceChangedBody,
  QuoteExpiredBody,
  QuoteNotReservableBody,
  RateLimitedBody,
  ReservationNotPendingBody,
  ValidationErrorBody
} from "./Errors.js"
import { IntentHeaders } from "./RequestHeaders.js"
import { ReservationTokenAuth } from "./ReservationToken.js"

/** Endpoints 9 to 11: a pending reservation from a live quote, completed by the guest. */
export class ReservationsGroup extends HttpApiGroup.make("reservations")
  .add(
    HttpApiEndpoint.post("createIntent", "/v1/reservation-intents", {
      payload: IntentRequest,
      headers: IntentHeaders,
      success: IntentResponse,
      error: [
        ValidationErrorBody,
        QuoteExpiredBody,
        QuoteNotReservableBody,
        GroupBookingRequiredBody,
        IdempotencyInProgressBody,
        IdempotencyKeyReusedBody,
        RateLimitedBody
      ]
    })
      .annotate(OpenApi.Summary, "Create a reservation intent from a still-valid quote; returns continue_url")
      .annotate(
        OpenApi.Description,
        "Turns a package of an unexpired quote into a pending reservation (status PENDING_GUEST) and answers continue_url, " +
          "the secure guest-completion page: present it to the user as a clickable next step. The reservation is not " +
          "complete until the guest finishes that form. Nothing is written to the inventory or the PMS. No payment is required. " +
          "A quote with reservable false is refused: 409 quote_not_reservable; for more rooms than one reservation may hold " +
          "(booking.max_rooms_per_reservation) its details give reason group_booking, max_rooms, requested_rooms and the hotel's contact. " +
          "One client address makes at most INTENT_LIMIT_PER_HOUR intents a clock hour (default 60): beyond, 429 rate_limited with Retry-After."
      ),
    HttpApiEndpoint.get("publicView", "/v1/reservation-public", { success: PublicReservation })
      .middleware(ReservationTokenAuth)
      .annotate(OpenApi.Summary, "Prefilled pending reservation and the guest fields to complete it (guest link token)")
      .annotate(
        OpenApi.Description,
        "Identified by the guest link's X-Reservation-Token. Once the reservation is no longer PENDING_GUEST the link still " +
          "answers its status, reservation_number, stay, rooms and price, but guest is null: whoever created the intent holds " +
          "this link, and the guest's details are shown only through the manage link."
      ),
    HttpApiEndpoint.post("complete", "/v1/reservation-complete", {
      payload: CompletionRequest,
      success: CompletionResponse,
      error: [ValidationErrorBody, AvailabilityChangedBody, PriceChangedBody, ReservationNotPendingBody, RateLimitedBody]
    })
      .middleware(ReservationTokenAuth)
      .annotate(OpenApi.Summary, "Guest completion: revalidates availability and price live, then GUEST_COMPLETED")
      .annotate(
        OpenApi.Description,
        "Identified by the guest link's X-Reservation-Token. Requires the guest's details, accept_terms true for the current " +
          "terms_version and expected_total (the total the guest saw). In one transaction the stay is re-priced live: " +
          "409 availability_changed (details.rooms[] gives each room request that can no longer be had and its reason, " +
          "with min_stay or max_stay; nothing is booked, quote again) or 409 price_changed (with details.new_total; " +
          `completing again with it succeeds). ${RULES.hotelSystems} ${RULES.unavailable} ` +
          "On success the status is GUEST_COMPLETED and the PMS status PENDING; completing twice answers the same reservation. " +
          "The hotel takes a limited number of completions per client address and hour (BOOKING_LIMIT_PER_HOUR, counted across " +
          "all instances): beyond it, 429 rate_limited with Retry-After, the seconds until one more is accepted."
      )
  )
  .annotate(OpenApi.Title, "Reservations")
  .annotate(OpenApi.Description, "Reservation intents and guest completion")
{}
