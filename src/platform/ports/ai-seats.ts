/**
 * AI seats (spec 2, AI seat rule): which users consume a seat. The AI gateway implements it and
 * provides it globally; user and organization-member presenters (Coder's `has_ai_seat`) inject it
 * with `@Optional()` and ask only for the users of the page they return. `null` means no
 * entitlement is configured (`AI_GOVERNANCE_USER_LIMIT` unset): omit the field / answer false.
 */
export abstract class AiSeats {
  abstract seatHolders(userIds: readonly string[]): Promise<ReadonlySet<string> | null>;
}
