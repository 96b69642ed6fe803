// Query parameters of the paged and dated reads, checked the way the upstream's validation reports them: each
// problem is collected with its location, so one 422 names every bad parameter at once.
import { apiErrors, issue, type ValidationIssue } from "./http";

export function integerParam(
  value: string | null,
  name: string,
  fallback: number,
  min: number,
  max: number,
  problems: ValidationIssue[],
): number {
  if (value === null || value === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    problems.push(
      issue(["query", name], `${name} must be an integer from ${min} to ${max === Infinity ? "up" : max}`, "range"),
    );
    return fallback;
  }
  return parsed;
}

export function isValidDate(value: string): boolean {
  return !Number.isNaN(new Date(`${value}T00:00:00Z`).getTime());
}

export function dateParam(value: string | null, name: string, fallback: string, problems: ValidationIssue[]): string {
  if (value === null || value === "") return fallback;
  const valid =
    /^\d{4}-\d{2}-\d{2}$/.test(value) &&
    isValidDate(value) &&
    new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
  if (!valid) {
    problems.push(issue(["query", name], `${name} must be a date as YYYY-MM-DD`, "date_from_datetime_parsing"));
    return fallback;
  }
  return value;
}

/**
 * Repeated keys (the Python SDK) and comma-joined values (the older Node SDK) both name several accounts. The key is
 * `account_ids` on every route but GET /users/{id}/transactions, which names it `account_id` (upstream-facts §4.3).
 */
export function accountIdsParam(query: URLSearchParams, name = "account_ids"): Set<string> {
  return new Set(
    query
      .getAll(name)
      .flatMap((value) => value.split(","))
      .filter(Boolean),
  );
}

const DAY_MS = 86_400_000;
/** Upstream default window: the 90 days up to today; `start_date=1900-01-01` asks for everything. */
const DEFAULT_WINDOW_DAYS = 90;

export interface TransactionsPageParams {
  page: number;
  size: number;
  startDate: string;
  endDate: string;
}

/**
 * `page` (from 1), `size` (1–1000, 50 by default), `end_date` (today by default) and `start_date` (90 days before the
 * end by default) of a paged transactions listing: GET /links/{id}/transactions (upstream-facts §4.1) and GET
 * /users/{id}/transactions (§4.3) take the same. One 422 names every bad parameter.
 */
export function transactionsPageParams(query: URLSearchParams, today: string): TransactionsPageParams {
  const problems: ValidationIssue[] = [];
  const page = integerParam(query.get("page"), "page", 1, 1, Infinity, problems);
  const size = integerParam(query.get("size"), "size", 50, 1, 1000, problems);
  const endDate = dateParam(query.get("end_date"), "end_date", today, problems);
  const defaultStart = isValidDate(endDate)
    ? new Date(new Date(`${endDate}T00:00:00Z`).getTime() - DEFAULT_WINDOW_DAYS * DAY_MS).toISOString().slice(0, 10)
    : today;
  const startDate = dateParam(query.get("start_date"), "start_date", defaultStart, problems);
  if (problems.length === 0 && startDate > endDate) {
    problems.push(issue(["query", "start_date"], "start_date must not be after end_date", "value_error"));
  }
  if (problems.length > 0) throw apiErrors.validation(problems);
  return { page, size, startDate, endDate };
}
