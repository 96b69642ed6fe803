import { brandError, hasErrorBrand } from "../error-brand";

/**
 * The shared budget's storage (PostgreSQL) could not be read or written. The caller must not call the upstream: without
 * the shared count, no instance can know whether the call would exceed the limit.
 */
export class BudgetUnavailableError extends Error {
  /** The store did not answer in time (as opposed to refusing or failing outright). */
  readonly timedOut: boolean;

  constructor(options: { cause: unknown; timedOut?: boolean }) {
    super(
      options.timedOut
        ? "The shared rate budget (PostgreSQL) did not answer in time, so the call was not sent upstream. Try again shortly."
        : "The shared rate budget (PostgreSQL) is unavailable, so the call was not sent upstream. Try again once the database is back.",
      { cause: options.cause },
    );
    this.name = "BudgetUnavailableError";
    this.timedOut = options.timedOut ?? false;
    brandError(this, "BudgetUnavailableError");
  }
}

/** Whether `error` is a BudgetUnavailableError (made by any server chunk's copy of the class). */
export function isBudgetUnavailable(error: unknown): error is BudgetUnavailableError {
  return hasErrorBrand(error, "BudgetUnavailableError");
}
