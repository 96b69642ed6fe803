/**
 * The shared budget's storage (PostgreSQL) could not be read or written. The caller must not call the upstream: without
 * the shared count, no instance can know whether the call would exceed the limit.
 */
export class BudgetUnavailableError extends Error {
  constructor(options: { cause: unknown; timedOut?: boolean }) {
    super(
      options.timedOut
        ? "The shared rate budget (PostgreSQL) did not answer in time, so the call was not sent upstream. Try again shortly."
        : "The shared rate budget (PostgreSQL) is unavailable, so the call was not sent upstream. Try again once the database is back.",
      { cause: options.cause },
    );
    this.name = "BudgetUnavailableError";
  }
}
