/**
 * How often the Rate limits page reads the budget again. A plain module, not the client view's: a constant exported
 * from a "use client" module reaches a server component as a client reference, not a number (the page said
 * "Updates every NaN s.").
 */
export const RATE_LIMITS_REFRESH_MS = 5_000;
