import { z } from "zod";
import { jobStates } from "../db/schema";
import { type DroppedParam, type RawParams, parseFieldByField } from "../http/url-params";

// The Jobs page's filters, kept in the URL like every list's.

const fields = {
  state: z.enum(jobStates, "must be running, paused, cancelled or done"),
  kind: z.string().trim().min(1).max(40),
  link: z.string().trim().min(1).max(200),
};
const KEYS = ["state", "kind", "link"] as const;

export interface JobListQuery {
  state?: (typeof jobStates)[number];
  kind?: string;
  linkId?: string;
}

export function parseJobListFilters(input: RawParams | URLSearchParams): {
  filters: JobListQuery;
  dropped: DroppedParam[];
} {
  const { values, dropped } = parseFieldByField(fields, KEYS, input);
  return { filters: { state: values.state, kind: values.kind, linkId: values.link }, dropped };
}
