// GET /institutions and GET /institutions/{institution_id} (shapes: upstream-facts §13), served from the catalog.
import { ALIAS_PROVIDERS, INSTITUTIONS, findInstitutionByIdOrAlias, type Institution } from "../catalog";
import type { Route } from "../context";
import { apiErrors, issue, type ValidationIssue } from "../http";

const LIMIT_MIN = 1;
const LIMIT_MAX = 1000;
const LIMIT_DEFAULT = 50;

export function toWireInstitution(institution: Institution) {
  return {
    institution_id: institution.institution_id,
    institution_id_aliases: ALIAS_PROVIDERS.map((provider) => `${provider}.${institution.institution_id}`),
    name: institution.name,
    country: institution.country,
    domain: institution.domain,
    color: institution.color,
    color_dark: institution.color_dark,
    is_featured: institution.featured,
  };
}

// Cursors are opaque to clients; inside they name the last institution served (the list is in catalog order).
const encodeCursor = (institutionId: string) =>
  Buffer.from(JSON.stringify(["inst", institutionId])).toString("base64url");

function decodeCursor(cursor: string): string | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(value) && value[0] === "inst" && typeof value[1] === "string") return value[1];
  } catch {
    // an unreadable cursor is a validation error below
  }
  return null;
}

export const institutionRoutes: Route[] = [
  {
    method: "GET",
    template: "/institutions",
    async handle({ query }) {
      const problems: ValidationIssue[] = [];
      const rawLimit = query.get("limit");
      const limit = rawLimit === null || rawLimit === "" ? LIMIT_DEFAULT : Number(rawLimit);
      if (!Number.isInteger(limit) || limit < LIMIT_MIN || limit > LIMIT_MAX) {
        problems.push(issue(["query", "limit"], `limit must be an integer from ${LIMIT_MIN} to ${LIMIT_MAX}`, "range"));
      }
      const rawFeatured = query.get("featured");
      if (rawFeatured !== null && rawFeatured !== "" && rawFeatured !== "true" && rawFeatured !== "false") {
        problems.push(issue(["query", "featured"], "featured must be true or false", "bool_parsing"));
      }
      const rawCursor = query.get("cursor");
      const after = rawCursor ? decodeCursor(rawCursor) : null;
      if (rawCursor && (after === null || !INSTITUTIONS.some((i) => i.institution_id === after))) {
        problems.push(issue(["query", "cursor"], "unknown cursor", "value_error"));
      }
      if (problems.length > 0) throw apiErrors.validation(problems);

      // "match whole name or prefix" (upstream-facts §13), without regard to case.
      const name = query.get("name")?.trim().toLowerCase() ?? "";
      const afterIndex = after ? INSTITUTIONS.findIndex((institution) => institution.institution_id === after) : -1;
      const matching = INSTITUTIONS.filter(
        (institution, index) =>
          index > afterIndex &&
          (!name || institution.name.toLowerCase().startsWith(name)) &&
          (rawFeatured !== "true" || institution.featured),
      );
      const page = matching.slice(0, limit);
      const more = matching.length > limit;
      return {
        status: 200,
        body: {
          institutions: page.map(toWireInstitution),
          cursors: { next: more ? encodeCursor(page[page.length - 1]!.institution_id) : null },
        },
      };
    },
  },
  {
    method: "GET",
    template: "/institutions/{institution_id}",
    async handle({ params }) {
      const institution = findInstitutionByIdOrAlias(params.institution_id ?? "");
      if (!institution) throw apiErrors.institutionNotFound();
      return { status: 200, body: toWireInstitution(institution) };
    },
  },
];
