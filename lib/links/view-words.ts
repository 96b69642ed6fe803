import type { LinkListParams } from "../schemas/links";
import { WHO_ACTS_LABELS, linkErrorLabel, linkStateLabel } from "./error-codes";

// A links-list view's filters in words, for a campaign's title and preview ("Error: Authorization expired ·
// Institution: Chase"), never the raw query string. Plain: the browser and the server both say it.

export function describeLinkView(params: LinkListParams): string {
  const parts: string[] = [];
  if (params.state) parts.push(`State: ${linkStateLabel(params.state)}`);
  if (params.error_code) parts.push(`Error: ${linkErrorLabel(params.error_code)}`);
  if (params.who_acts) parts.push(`Who acts: ${WHO_ACTS_LABELS[params.who_acts]}`);
  if (params.institution) parts.push(`Institution: ${params.institution}`);
  if (params.provider) parts.push(`Provider: ${params.provider}`);
  if (params.tag) parts.push(`Tag: ${params.tag}`);
  if (params.product_error) parts.push(`Product error: ${linkErrorLabel(params.product_error)}`);
  if (params.stale) parts.push(`Not refreshed for ${params.stale} day${params.stale === 1 ? "" : "s"}`);
  if (params.q) parts.push(`Matching “${params.q}”`);
  if (params.campaign) parts.push("Asked by an earlier campaign and not back");
  return parts.length === 0 ? "Every link" : parts.join(" · ");
}
