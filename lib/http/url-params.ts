import type { z } from "zod";

// Page filters live in the URL, so they arrive hand-edited, stale or doubled. Both filtered pages (Audit, Links) read
// them the same way: field by field, a bad value dropped and reported (never an error page), blank values as "not
// set" (a GET form sends every field), unknown parameters ignored.

export type RawParams = Record<string, string | string[] | undefined>;

export interface DroppedParam<K extends string = string> {
  param: K;
  /** As given: show it as text only. */
  value: string;
  reason: string;
}

export function searchParamsToRecord(params: URLSearchParams): RawParams {
  const record: RawParams = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    record[key] = values.length === 1 ? values[0] : values;
  }
  return record;
}

export function parseFieldByField<S extends Record<string, z.ZodType>, K extends keyof S & string>(
  fields: S,
  keys: readonly K[],
  input: RawParams | URLSearchParams,
  reasonOf: (issue: z.core.$ZodIssue | undefined) => string = (issue) => issue?.message ?? "invalid",
): { values: { [P in K]?: z.output<S[P]> }; dropped: DroppedParam<K>[] } {
  const raw = input instanceof URLSearchParams ? searchParamsToRecord(input) : input;
  const values: { [P in K]?: z.output<S[P]> } = {};
  const dropped: DroppedParam<K>[] = [];
  for (const param of keys) {
    const value = raw[param];
    if (value === undefined || (typeof value === "string" && value.trim() === "")) continue;
    if (Array.isArray(value)) {
      dropped.push({ param, value: value.join(", "), reason: "given more than once" });
      continue;
    }
    const parsed = fields[param]!.safeParse(value);
    if (parsed.success) values[param] = parsed.data as z.output<S[K]>;
    else dropped.push({ param, value, reason: reasonOf(parsed.error.issues[0]) });
  }
  return { values, dropped };
}
