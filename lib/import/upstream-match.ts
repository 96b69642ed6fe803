import { IDENTITY_TAG_PREFIX, institutionBehindProvider, normaliseInstitutionId } from "./identity";

// A file's links matched with what the upstream already holds for their customers (GET /users/{id}/links and
// GET /users/{id}/accounts), by every identity the two share: Linkdesk's own identity tag, the identity tags ops have
// named (in this import or an earlier one, whatever the mode), and the link's shape (institution and accounts).
// Linkdesk's records can be lost and links can be migrated by other means; the upstream's copy is the truth. Pure:
// the server reads the upstream (lib/jobs/import-upstream.ts) and this decides, so every case is tested without one.

/** What the file says of one link that can be imported. */
export interface FileLinkFacts {
  position: number;
  line: number;
  /** The link's identity key under the import's rule (Linkdesk's record of imported links is keyed by it). */
  identityKey?: string;
  customerUserId: string;
  institutionId: string;
  accounts: { id: string; name: string | null; mask: string | null }[];
  /** The file's link_tags; null when the link carries none (then its tags are not compared). */
  tags: string[] | null;
  webhook: string | null;
  /** Each transaction's id as sent (the file's, or the one Linkdesk gives it) and its account. */
  transactions: { id: string; accountId: string }[];
  firstDate: string | null;
  lastDate: string | null;
  /** Linkdesk's identity tags this link carries or carried, under the default rule and under this import's rule. */
  ownTags: string[];
}

/** A link of the customer as the upstream holds it. */
export interface UpstreamLinkFacts {
  linkId: string;
  state: string;
  institutionId: string;
  institutionName: string | null;
  tags: string[];
  webhook: string | null;
}

export interface UpstreamAccountFacts {
  originalId: string | null;
  mask: string | null;
  name: string | null;
}

/** One customer at the upstream: its links, and (when read) each live link's accounts. */
export interface CustomerAtUpstream {
  links: UpstreamLinkFacts[];
  accounts: ReadonlyMap<string, UpstreamAccountFacts[]> | null;
}

/** What the file would change on a link the upstream holds already. */
export interface LinkDiff {
  /** Transactions of the file the upstream's copy lacks (on accounts it has); null when the copy was not read. */
  newTransactions: string[] | null;
  /** The file's tags against the upstream's (Linkdesk's own tags left aside); null when the file carries none. */
  tags: { add: string[]; remove: string[] } | null;
  webhook: { from: string | null; to: string } | null;
  /** What the upstream cannot change after an import: kept as the upstream has it unless the link is replaced. */
  fixed: { field: string; file: string; upstream: string }[];
}

export type UpstreamMatch =
  | { kind: "new" }
  /** The same link, by an identity both carry: never imported again. */
  | { kind: "same"; linkId: string; by: string; diff: LinkDiff }
  /** The same customer's link of the same shape, sharing no identity: ops confirm before anything is sent. */
  | { kind: "possible"; linkId: string; by: string; diff: LinkDiff }
  /** More than one upstream link answers to the same identity: nothing is sent until ops resolve it. */
  | { kind: "ambiguous"; linkIds: string[]; by: string }
  /** The link was deleted at the upstream (readable for 90 days): imported again only by choice. */
  | { kind: "deleted"; linkId: string; by: string }
  /** The upstream could not be asked about the link's customer: nothing is sent until it can be. */
  | { kind: "unchecked"; reason: string };

export const UPSTREAM_MATCH_LABELS: Record<UpstreamMatch["kind"], string> = {
  new: "New",
  same: "At the upstream already",
  possible: "Possibly at the upstream: decide",
  ambiguous: "Matches more than one upstream link",
  deleted: "Deleted at the upstream",
  unchecked: "Not checked at the upstream",
};

const isOwnTag = (tag: string) => tag.startsWith("linkdesk-");
const tagName = (tag: string) => {
  const colon = tag.indexOf(":");
  return colon > 0 ? tag.slice(0, colon) : null;
};

/**
 * The same institution: the same id in one spelling (`MX.chase` is `mx.chase`), or the file names it through a provider
 * (`mx.chase`) and the upstream resolved it to its own id (`chase`).
 */
export function sameInstitution(fileId: string, upstreamId: string): boolean {
  const upstream = normaliseInstitutionId(upstreamId);
  return normaliseInstitutionId(fileId) === upstream || institutionBehindProvider(fileId) === upstream;
}

/** The file's accounts are the upstream link's: the same ids (kept upstream as original_id), or else the same masks. */
function sameAccounts(file: FileLinkFacts["accounts"], upstream: UpstreamAccountFacts[] | undefined): boolean {
  if (!upstream || upstream.length === 0 || file.length === 0 || file.length !== upstream.length) return false;
  const sorted = (values: (string | null)[]) => [...values].sort().join("\u0000");
  if (upstream.every((a) => a.originalId))
    return sorted(file.map((a) => a.id)) === sorted(upstream.map((a) => a.originalId));
  return (
    file.every((a) => a.mask) &&
    upstream.every((a) => a.mask) &&
    sorted(file.map((a) => a.mask)) === sorted(upstream.map((a) => a.mask))
  );
}

/** What differs between the file's link and the upstream's copy. */
export function diffLink(
  file: FileLinkFacts,
  upstream: UpstreamLinkFacts,
  accounts: UpstreamAccountFacts[] | undefined,
  originalIds: ReadonlySet<string> | undefined,
): LinkDiff {
  const fixed: LinkDiff["fixed"] = [];
  if (!sameInstitution(file.institutionId, upstream.institutionId))
    fixed.push({
      field: "institution",
      file: file.institutionId,
      upstream: upstream.institutionName
        ? `${upstream.institutionName} (${upstream.institutionId})`
        : upstream.institutionId,
    });
  const byOriginal = new Map((accounts ?? []).filter((a) => a.originalId).map((a) => [a.originalId!, a]));
  const missing: string[] = [];
  if (accounts) {
    for (const account of file.accounts) {
      const theirs = byOriginal.get(account.id);
      if (!theirs) missing.push(account.id);
      else if (account.name !== null && theirs.name !== null && account.name !== theirs.name)
        fixed.push({ field: `account ${account.id}: name`, file: account.name, upstream: theirs.name });
    }
    if (missing.length > 0)
      fixed.push({
        field: "accounts",
        file: `${missing.length} account${missing.length === 1 ? "" : "s"} the upstream's copy lacks (${missing.slice(0, 3).join(", ")}${missing.length > 3 ? ", …" : ""})`,
        upstream: `${accounts.length} account${accounts.length === 1 ? "" : "s"}`,
      });
  }
  // Only transactions on accounts the upstream's copy has can be added to it.
  const addable = accounts ? new Set(byOriginal.keys()) : null;
  const newTransactions = originalIds
    ? file.transactions
        .filter((t) => !originalIds.has(t.id) && (addable === null || addable.has(t.accountId)))
        .map((t) => t.id)
    : null;
  let tags: LinkDiff["tags"] = null;
  if (file.tags !== null) {
    const mine = new Set(file.tags.filter((t) => !isOwnTag(t)));
    const theirs = new Set(upstream.tags.filter((t) => !isOwnTag(t)));
    const add = [...mine].filter((t) => !theirs.has(t));
    const remove = [...theirs].filter((t) => !mine.has(t));
    if (add.length > 0 || remove.length > 0) tags = { add, remove };
  }
  const webhook =
    file.webhook !== null && file.webhook !== upstream.webhook ? { from: upstream.webhook, to: file.webhook } : null;
  return { newTransactions, tags, webhook, fixed };
}

/** The PATCH /links/{id} body that gives the upstream's copy the file's tags and webhook; Linkdesk's own tags kept. */
export function updateFor(file: FileLinkFacts, upstream: UpstreamLinkFacts, diff: LinkDiff) {
  const body: { link_tags?: string[]; webhook?: string } = {};
  if (diff.tags && file.tags)
    body.link_tags = [...upstream.tags.filter(isOwnTag), ...new Set(file.tags.filter((t) => !isOwnTag(t)))];
  if (diff.webhook) body.webhook = diff.webhook.to;
  return Object.keys(body).length > 0 ? body : null;
}

export interface MatchOptions {
  /** Tag names that identify a link (`legacy_id` in `legacy_id:ID0042`): this import's, and earlier imports'. */
  identityNames: readonly string[];
  /** Original ids of the transactions the upstream holds, by link (for the matched links whose copy was read). */
  originalIds?: ReadonlyMap<string, ReadonlySet<string>>;
}

/**
 * Each file link against its customer's links at the upstream. A shared identity tag (Linkdesk's own, or one of
 * `identityNames`) is the same link; a live link of the same customer whose accounts are the file's, sharing no such
 * tag, is a possible match for ops to confirm; an identity two live links answer to is ambiguous; an identity only a
 * deleted link answers to says so. A customer not read (`undefined`) leaves its links `new`: the job checks them again
 * right before each import.
 */
export function matchWithUpstream(
  files: readonly FileLinkFacts[],
  customers: ReadonlyMap<string, CustomerAtUpstream>,
  options: MatchOptions,
): Map<number, UpstreamMatch> {
  const names = new Set(options.identityNames);
  const identifying = (tag: string) =>
    tag.startsWith(IDENTITY_TAG_PREFIX) || (tagName(tag) !== null && names.has(tagName(tag)!));
  const out = new Map<number, UpstreamMatch>();
  /** Upstream links claimed by an identity: a link of the same shape elsewhere in the file is not offered them. */
  const claimed = new Map<string, number>();
  const shapeless: FileLinkFacts[] = [];

  for (const file of files) {
    const customer = customers.get(file.customerUserId);
    if (!customer) {
      out.set(file.position, { kind: "new" });
      continue;
    }
    const ids = [...file.ownTags, ...(file.tags ?? []).filter(identifying)];
    const hits = customer.links.filter((link) => ids.some((tag) => link.tags.includes(tag)));
    const by = (link: UpstreamLinkFacts) => {
      const shared = ids.find((tag) => link.tags.includes(tag))!;
      return shared.startsWith(IDENTITY_TAG_PREFIX) ? "Linkdesk's identity tag" : `tag ${shared}`;
    };
    const live = hits.filter((l) => l.state !== "deleted");
    if (live.length > 1) {
      out.set(file.position, { kind: "ambiguous", linkIds: live.map((l) => l.linkId), by: by(live[0]!) });
    } else if (live.length === 1) {
      const link = live[0]!;
      const earlier = claimed.get(link.linkId);
      if (earlier !== undefined) {
        out.set(file.position, {
          kind: "ambiguous",
          linkIds: [link.linkId],
          by: `${by(link)}, which the link at #${earlier + 1} of the file also matches`,
        });
        continue;
      }
      claimed.set(link.linkId, file.position);
      out.set(file.position, {
        kind: "same",
        linkId: link.linkId,
        by: by(link),
        diff: diffLink(file, link, customer.accounts?.get(link.linkId), options.originalIds?.get(link.linkId)),
      });
    } else if (hits.length > 0) {
      out.set(file.position, { kind: "deleted", linkId: hits[0]!.linkId, by: by(hits[0]!) });
      shapeless.push(file);
    } else {
      shapeless.push(file);
    }
  }

  // By shape, among the live links no identity claimed.
  for (const file of shapeless) {
    const customer = customers.get(file.customerUserId)!;
    if (!customer.accounts) {
      if (!out.has(file.position)) out.set(file.position, { kind: "new" });
      continue;
    }
    const candidates = customer.links.filter(
      (link) =>
        link.state !== "deleted" &&
        !claimed.has(link.linkId) &&
        sameAccounts(file.accounts, customer.accounts!.get(link.linkId)),
    );
    // A link deleted upstream is reported as such unless a live link of its shape is there.
    if (candidates.length === 0) {
      if (!out.has(file.position)) out.set(file.position, { kind: "new" });
      continue;
    }
    if (candidates.length > 1) {
      out.set(file.position, {
        kind: "ambiguous",
        linkIds: candidates.map((l) => l.linkId),
        by: "the same customer and accounts",
      });
      continue;
    }
    const link = candidates[0]!;
    const institution = sameInstitution(file.institutionId, link.institutionId);
    out.set(file.position, {
      kind: "possible",
      linkId: link.linkId,
      by: institution ? "the same customer, institution and accounts" : "the same customer and accounts",
      diff: diffLink(file, link, customer.accounts.get(link.linkId), options.originalIds?.get(link.linkId)),
    });
  }
  return out;
}

/** A match in a sentence, for the preview and the reconciliation's reason. */
export function describeMatch(match: UpstreamMatch): string {
  switch (match.kind) {
    case "new":
      return "Not at the upstream: imported.";
    case "same":
      return `Already at the upstream as link ${match.linkId} (by ${match.by}); not imported again.`;
    case "possible":
      return `Possibly link ${match.linkId} at the upstream (${match.by}, no shared identity tag): not imported unless you say it is a different link.`;
    case "ambiguous":
      return `Matches ${match.linkIds.length === 1 ? `link ${match.linkIds[0]}` : `${match.linkIds.length} upstream links (${match.linkIds.join(", ")})`} by ${match.by}: not imported until the upstream's copies are sorted out.`;
    case "deleted":
      return `Link ${match.linkId} with this identity was deleted at the upstream (by ${match.by}): imported again only if you choose to.`;
    case "unchecked":
      return `The upstream could not be asked about this customer's links (${match.reason}): not imported, so that nothing is created twice; upload the file again later.`;
  }
}

/** A diff in a few words: "25 new transactions; tags +a −b; webhook changed; institution differs". */
export function describeDiff(diff: LinkDiff): string {
  const parts: string[] = [];
  if (diff.newTransactions === null) parts.push("transactions not compared");
  else if (diff.newTransactions.length > 0)
    parts.push(
      `${diff.newTransactions.length.toLocaleString("en-US")} new transaction${diff.newTransactions.length === 1 ? "" : "s"}`,
    );
  if (diff.tags)
    parts.push(
      `tags ${[...diff.tags.add.map((t) => `+${t}`), ...diff.tags.remove.map((t) => `−${t}`)].join(" ")}`.trim(),
    );
  if (diff.webhook) parts.push(`webhook ${diff.webhook.from ?? "(none)"} → ${diff.webhook.to}`);
  for (const f of diff.fixed) parts.push(`${f.field}: the file has ${f.file}, the upstream ${f.upstream}`);
  return parts.length === 0 ? "no differences" : parts.join("; ");
}

/** What ops chose in the preview for the links the upstream may hold already. */
export interface UpstreamDecisions {
  /** Add the file's transactions the upstream's copies lack (POST /links/{id}/import/transactions). */
  addTransactions: boolean;
  /** Give the upstream's copies the file's tags and webhook (PATCH /links/{id}). */
  applyChanges: boolean;
  /** `#position:linkId` of possible matches that are different links, and of deleted links to import again. */
  importAnyway: readonly string[];
  /** `#position:linkId` of possible matches that are the same link. */
  sameLink: readonly string[];
  /**
   * `#position:linkId` of matched links to replace: the upstream's copy is deleted and the file's link imported in its
   * place. Offered where the file differs in what the upstream cannot change after an import (`LinkDiff.fixed`).
   */
  replace: readonly string[];
}

export const NO_DECISIONS: UpstreamDecisions = {
  addTransactions: true,
  applyChanges: false,
  importAnyway: [],
  sameLink: [],
  replace: [],
};

/** How a decision names one link of the file and the upstream link it was matched with. */
export const decisionKey = (position: number, linkId: string) => `#${position}:${linkId}`;

export type UpdateBody = NonNullable<ReturnType<typeof updateFor>>;

export type LinkDecision =
  | { act: "import" }
  | {
      act: "skip";
      outcome: "at_upstream" | "possible_match" | "ambiguous" | "deleted_upstream" | "unchecked";
      linkId: string | null;
      reason: string;
      /** At the upstream with differences it cannot take (institution, customer, account names): it may be replaced. */
      fixed?: boolean;
    }
  /** The upstream's copy is deleted, then the file's link imported in its place. */
  | { act: "replace"; linkId: string; reason: string }
  /** Calls on the upstream's copy: the file's new transactions, its tags and webhook. */
  | { act: "update"; linkId: string; newTransactions: string[]; update: UpdateBody | null; reason: string };

/** What the import does with one link of the file, given its match and ops' decisions. */
export function decide(
  match: UpstreamMatch | undefined,
  file: FileLinkFacts | undefined,
  upstream: UpstreamLinkFacts | undefined,
  decisions: UpstreamDecisions,
): LinkDecision {
  if (!match || match.kind === "new") return { act: "import" };
  switch (match.kind) {
    case "ambiguous":
      return { act: "skip", outcome: "ambiguous", linkId: match.linkIds[0] ?? null, reason: describeMatch(match) };
    case "unchecked":
      return { act: "skip", outcome: "unchecked", linkId: null, reason: describeMatch(match) };
    case "deleted":
      return decisions.importAnyway.includes(decisionKey(file?.position ?? -1, match.linkId))
        ? { act: "import" }
        : { act: "skip", outcome: "deleted_upstream", linkId: match.linkId, reason: describeMatch(match) };
    case "possible":
    case "same": {
      const key = decisionKey(file?.position ?? -1, match.linkId);
      if (decisions.replace.includes(key) && match.diff.fixed.length > 0)
        return {
          act: "replace",
          linkId: match.linkId,
          reason: `Replaces upstream link ${match.linkId} (${match.kind === "same" ? `by ${match.by}` : `your confirmation: ${match.by}`}), which keeps ${match.diff.fixed.map((f) => `${f.field} ${f.upstream}`).join(", ")}: it is deleted, then the file's link is imported with ${match.diff.fixed.map((f) => `${f.field} ${f.file}`).join(", ")}.`,
        };
      if (match.kind === "possible") {
        if (decisions.importAnyway.includes(key)) return { act: "import" };
        if (!decisions.sameLink.includes(key))
          return { act: "skip", outcome: "possible_match", linkId: match.linkId, reason: describeMatch(match) };
      }
      const newTransactions = decisions.addTransactions ? (match.diff.newTransactions ?? []) : [];
      const update = decisions.applyChanges && file && upstream ? updateFor(file, upstream, match.diff) : null;
      const said = `Already at the upstream as link ${match.linkId} (by ${match.kind === "same" ? match.by : `your confirmation: ${match.by}`}): ${describeDiff(match.diff)}.`;
      if (newTransactions.length === 0 && !update)
        return {
          act: "skip",
          outcome: "at_upstream",
          linkId: match.linkId,
          reason: `${said} Not imported again.`,
          ...(match.diff.fixed.length > 0 ? { fixed: true } : {}),
        };
      const doing = [
        newTransactions.length > 0 ? `adding ${plural(newTransactions.length, "new transaction")}` : null,
        update ? "giving it the file's tags and webhook" : null,
      ].filter(Boolean);
      return {
        act: "update",
        linkId: match.linkId,
        newTransactions,
        update,
        reason: `${said} Not imported again; ${doing.join(" and ")}.`,
      };
    }
  }
}

const plural = (n: number, one: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : `${one}s`}`;

/**
 * A link the upstream holds with nothing to change, which Linkdesk's own record says it imported as the same link:
 * shown as "already imported" (with its import), as before the upstream was asked. One whose file differs in what the
 * upstream cannot change is listed with the matches instead, where ops may replace it.
 */
export function recordAgrees(decision: LinkDecision, recordedLinkId: string | null | undefined): boolean {
  return (
    decision.act === "skip" &&
    decision.outcome === "at_upstream" &&
    !decision.fixed &&
    !!recordedLinkId &&
    decision.linkId === recordedLinkId
  );
}
