// One set of lease rules for everything that runs on one instance at a time and must move to another when that
// instance dies: the links sync's lease and every job item's lease. A holder renews its lease every HEARTBEAT_MS; a
// lease not renewed for LEASE_TTL_MS is taken over by the next instance that looks, and instances look every
// TAKEOVER_POLL_MS. So a killed holder's work moves within LEASE_TTL_MS + TAKEOVER_POLL_MS (17 s); a holder that stops
// on purpose releases at once. Nothing else may stand in the way: the job engine checks a dead holder's unknown calls in
// places of their own, so calls the instance taking over holds while they wait for rate-limit slots (a minute, when
// the budget is full) do not delay them.

/** A lease not renewed for this long is taken to belong to a dead instance. */
export const LEASE_TTL_MS = 15_000;
/** A live holder renews this often: three renewals fit in one TTL, so one slow database round trip loses nothing. */
export const HEARTBEAT_MS = 5_000;
/** How often an idle instance looks for work whose lease has lapsed. */
export const TAKEOVER_POLL_MS = 2_000;
