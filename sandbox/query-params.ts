// Query parameters of the paged and dated reads, checked the way the upstream's validation reports them: each
// problem is collected with its location, so one 422 names every bad parameter at once.
import { issue, type ValidationIssue } from "./http";

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

/** Repeated keys (the Python SDK) and comma-joined values (the older Node SDK) both name several accounts. */
export function accountIdsParam(query: URLSearchParams): Set<string> {
  return new Set(
    query
      .getAll("account_ids")
      .flatMap((value) => value.split(","))
      .filter(Boolean),
  );
}
