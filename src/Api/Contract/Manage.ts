import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { ManageRequest } from "../../Domain/Management.js"
import { ManagedReservation } from "../../Domain/Reservation.js"
import { ChangeQuote } from "../../Domain/StayChange.js"
import { RULES } from "../Handlers/AgentRules.js"
import {
  AlreadyCancelledBody,
  AvailabilityChangedBody,
  CancellationNotAllowedBody,
  ChangeNotAllowedBody,
  GroupStayChangeBody,
  PriceChangedBody,
  RateLimitedBody,
  ValidationErrorBody
} from "./Errors.js"
import { ReservationTokenAuth } from "./ReservationToken.js"

/** Endpoints 12 to 14: a completed reservation, managed with the manage link's token. */
export class ManageGroup extends HttpApiGroup.make("manage")
  .add(
    HttpApiEndpoint.get("view", "/v1/reservation-manage", { success: ManagedReservation })
      .annotate(OpenApi.Summary, "The completed reservation, its policies, allowed_actions, refused_actions and editable_fields (manage link token)")
      .annotate(
        OpenApi.Description,
        "Identified by the manage link's X-Reservation-Token (the link of the confirmation email, PUBLIC_BASE_URL/manage#token=…); " +
          "a guest link's token is refused (401 invalid_token). allowed_actions lists what POST /v1/reservation-manage accepts now: " +
          "cancel and change_stay (which stands for quote_change too) appear only for a refundable rate before " +
          "policies.free_cancellation_until (hotel time); when they do not, refused_actions says why: reason non_refundable, " +
          "deadline_passed or not_completed (the reservation is cancelled), and a message. editable_fields lists the " +
          "details update_guest may change, with their labels and limits, as guest_fields does for completion."
      ),
    HttpApiEndpoint.post("act", "/v1/reservation-manage", {
      payload: ManageRequest,
      success: [ManagedReservation, ChangeQuote],
      error: [
        ValidationErrorBody,
        GroupStayChangeBody,
        CancellationNotAllowedBody,
        AlreadyCancelledBody,
        ChangeNotAllowedBody,
        PriceChangedBody,
        AvailabilityChangedBody,
        RateLimitedBody
      ]
    })
      .annotate(
        OpenApi.Summary,
        "Update the guest's details, cancel, resend the confirmation email, quote or make a stay change; answers the reservation as it now is"
      )
      .annotate(
        OpenApi.Description,
        "One action per request. update_guest changes any of phone, arrival_time, special_requests, baby_cot, " +
          "early_check_in_request, late_check_out_request (null clears a text) and sends a notice by email. cancel frees the " +
          "rooms at once, status CANCELLED, and sends a cancellation email; a non-refundable rate or a passed deadline is 409 " +
          "cancellation_not_allowed (details.reason non_refundable or deadline_passed), a second cancel 409 already_cancelled. resend_confirmation sends the confirmation email " +
          "again, at most once every 5 minutes (429 rate_limited with Retry-After). " +
          "quote_change prices new dates and rooms (rooms as POST /v1/quotes takes them, on the reservation's rate plan, its " +
          "own rooms counting as free) and answers a ChangeQuote (previous_total, new_total, difference); nothing changes. " +
          "change_stay makes that change in one transaction when expected_total is still the live new_total: the old nights " +
          "are given back and the new ones taken, the reservation keeps its number and manage link, a 'reservation changed' " +
          "email with the new PDF is sent, and the answer is the changed reservation. Fewer rooms cancel part of the stay. " +
          "Both are possible while allowed_actions lists change_stay (a refundable rate before the current stay's " +
          "free_cancellation_until), otherwise 409 change_not_allowed (details.reason non_refundable, deadline_passed or " +
          "not_completed). 409 price_changed: send change_stay again with details.new_total; 409 availability_changed: " +
          "details.rooms says which rooms cannot be had and why (reason, with min_stay or max_stay), choose other dates or " +
          `rooms. ${RULES.unavailable} ` +
          "More rooms than one reservation may hold is 400 invalid_request with details.reason group_booking and the " +
          "hotel's contact, who books groups. The same change sent again answers " +
          "the reservation as it is and changes nothing. Every change reaches the hotel's PMS."
      ),
    HttpApiEndpoint.get("document", "/v1/reservation-document", {
      success: Schema.Uint8Array.pipe(
        HttpApiSchema.asUint8Array({ contentType: "application/pdf" }),
        Schema.annotate({ description: "The confirmation PDF in the reservation's language (Content-Disposition gives its file name)" })
      ),
      error: AlreadyCancelledBody
    })
      .annotate(OpenApi.Summary, "The confirmation PDF of a completed reservation (manage link token)")
  )
  .middleware(ReservationTokenAuth)
  .annotate(OpenApi.Title, "Manage")
  .annotate(OpenApi.Description, "A completed reservation: view, change the guest's details, change the stay, cancel, confirmation PDF")
{}
