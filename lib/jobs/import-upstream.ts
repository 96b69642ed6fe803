import "server-only";
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { DEFAULT_IDENTITY, type IdentityRule, identityOf } from "../import/identity";
import type { PlannedLink } from "../import/plan";
import { type LinkReport, analyzeImportFile } from "../import/reader";
import { identityTag, lookupImported, markImportedLinkDeleted } from "./imported-links";
import { IMPORT_KIND } from "./import-items";
import { isUpstreamError } from "../upstream/errors";
import type { CallOptions, UpstreamApi } from "../upstream";
import type { WireLink } from "../upstream/schemas";
import { TRANSACTIONS_PAGE_SIZE, readAllUserTransactions } from "../transactions/read";
import {
  type CustomerAtUpstream,
  type FileLinkFacts,
  type UpstreamLinkFacts,
  type UpstreamMatch,
  matchWithUpstream,
} from "../import/upstream-match";

// Reading what the upstream holds for an import file's customers, for lib/import/upstream-match.ts to decide which
// links it already has. Per customer at most three calls, whatever its number of links: GET /users/{id}/links (every
// link in any state, with its tags), GET /users/{id}/accounts (each live link's accounts, with the original ids an
// import gave them) when it has live links, and GET /users/{id}/transactions over the dates of the file's matched
// links when they carry transactions. Reads go through the rate budget and wait their turn (queued).

/**
 * Customers asked about at most per plan; beyond it the job checks each link's customer right before importing it. At
 * Linkdesk's default share (300 calls a minute on each of the three routes) 200 customers take at most about 40 s.
 */
export const MAX_CUSTOMERS_CHECKED = 200;
/** Customers read side by side. */
const CONCURRENCY = 6;

export interface UpstreamCheck {
  matches: Map<number, UpstreamMatch>;
  /** Customers of the file, and how many the upstream was asked about. */
  customers: number;
  checked: number;
  calls: number;
  /** Customers whose reads failed (a 429 after waiting, a 5xx, an answer that could not be read), with why. */
  failed: { customerUserId: string; reason: string }[];
  /** The file's links that matched, by position, and the upstream links they matched (for the calls on them). */
  files: Map<number, FileLinkFacts>;
  upstreamLinks: Map<string, UpstreamLinkFacts>;
  /** The tag names links were known by (this import's rule and earlier imports'). */
  identityNames: string[];
}

const DAY_MS = 86_400_000;
const shiftDay = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

function linkFacts(link: WireLink): UpstreamLinkFacts {
  return {
    linkId: link.link_id,
    state: link.state,
    institutionId: link.institution_id,
    institutionName: link.institution_name ?? null,
    tags: link.link_tags ?? [],
    webhook: link.webhook ?? null,
  };
}

function reasonOf(error: unknown): string {
  if (isUpstreamError(error)) return error.message;
  return error instanceof Error ? error.message : "the upstream could not be read";
}

/** Runs `work` over `items`, `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/**
 * Matches `files` (the links of a file that can be imported) with what the upstream holds for their customers.
 * `identityNames`: the tag names ops know links by (this import's, earlier imports'). Customers past
 * MAX_CUSTOMERS_CHECKED are left unread (their links `new`); a customer whose reads fail makes its links `unchecked`.
 */
export async function checkWithUpstream(
  api: UpstreamApi,
  files: readonly FileLinkFacts[],
  identityNames: readonly string[],
  opts: CallOptions = {},
): Promise<UpstreamCheck> {
  const call: CallOptions = { mode: "queued", ...opts };
  const order: string[] = [];
  const byCustomer = new Map<string, FileLinkFacts[]>();
  for (const file of files) {
    const list = byCustomer.get(file.customerUserId);
    if (list) list.push(file);
    else {
      byCustomer.set(file.customerUserId, [file]);
      order.push(file.customerUserId);
    }
  }
  const asked = order.slice(0, MAX_CUSTOMERS_CHECKED);
  const customers = new Map<string, CustomerAtUpstream>();
  const failed: UpstreamCheck["failed"] = [];
  let calls = 0;

  await eachLimited(asked, CONCURRENCY, async (customerUserId) => {
    try {
      calls++;
      const { links } = await api.getUserLinks(customerUserId, call);
      const facts = Object.values(links).map(linkFacts);
      let accounts: CustomerAtUpstream["accounts"] = new Map();
      if (facts.some((l) => l.state !== "deleted")) {
        calls++;
        const answer = await api.getUserAccounts(customerUserId, {}, call);
        accounts = new Map(
          Object.entries(answer.links).map(([linkId, entry]) => [
            linkId,
            entry.accounts.map((a) => ({
              originalId: a.original_id ?? null,
              mask: a.account_mask ?? null,
              name: a.name ?? null,
            })),
          ]),
        );
      }
      customers.set(customerUserId, { links: facts, accounts });
    } catch (error) {
      failed.push({ customerUserId, reason: reasonOf(error) });
    }
  });

  let matches = matchWithUpstream(files, customers, { identityNames });

  // The transactions the upstream holds for the matched links, to say which of the file's are new.
  const matchedLink = (position: number) => {
    const m = matches.get(position);
    return m && (m.kind === "same" || m.kind === "possible") ? m.linkId : null;
  };
  const originalIds = new Map<string, Set<string>>();
  const toRead = asked.filter((c) =>
    (byCustomer.get(c) ?? []).some((f) => f.transactions.length > 0 && matchedLink(f.position)),
  );
  await eachLimited(toRead, CONCURRENCY, async (customerUserId) => {
    const matched = byCustomer.get(customerUserId)!.filter((f) => f.firstDate && matchedLink(f.position));
    const first = matched.reduce((min, f) => (f.firstDate! < min ? f.firstDate! : min), matched[0]!.firstDate!);
    const last = matched.reduce((max, f) => (f.lastDate! > max ? f.lastDate! : max), matched[0]!.lastDate!);
    try {
      const read = await readAllUserTransactions(
        api,
        customerUserId,
        // A day either side: the upstream may file a date-time on its UTC day.
        { startDate: shiftDay(first, -1), endDate: shiftDay(last, 1) },
        call,
      );
      calls += Math.max(1, Math.ceil((read.transactions.length + read.unreadable.length) / TRANSACTIONS_PAGE_SIZE));
      for (const id of new Set(matched.map((f) => matchedLink(f.position)!))) originalIds.set(id, new Set());
      for (const t of read.transactions) {
        const linkId = read.accounts[t.account_id]?.linkId;
        if (linkId && t.original_id) originalIds.get(linkId)?.add(t.original_id);
      }
    } catch (error) {
      failed.push({ customerUserId, reason: reasonOf(error) });
      customers.delete(customerUserId);
    }
  });
  if (originalIds.size > 0 || failed.length > 0)
    matches = matchWithUpstream(files, customers, { identityNames, originalIds });

  // A customer that could not be read: its links wait for ops (upload again), instead of risking a second copy.
  const failedCustomers = new Map(failed.map((f) => [f.customerUserId, f.reason]));
  for (const file of files) {
    const reason = failedCustomers.get(file.customerUserId);
    if (reason !== undefined) matches.set(file.position, { kind: "unchecked", reason });
  }
  const kept = new Map<number, FileLinkFacts>();
  const upstreamLinks = new Map<string, UpstreamLinkFacts>();
  for (const file of files) {
    const m = matches.get(file.position);
    if (!m || m.kind === "new" || m.kind === "unchecked") continue;
    kept.set(file.position, file);
    const linkId = m.kind === "ambiguous" ? null : m.linkId;
    const link = linkId ? customers.get(file.customerUserId)?.links.find((l) => l.linkId === linkId) : undefined;
    if (link) upstreamLinks.set(link.linkId, link);
  }
  return {
    matches,
    customers: order.length,
    checked: asked.length,
    calls,
    failed,
    files: kept,
    upstreamLinks,
    identityNames: [...identityNames],
  };
}

/**
 * A file checked with the upstream under an identity rule (kept a short while: see keptCheck). A link the upstream
 * says was deleted is free again in Linkdesk's records too, so ops may import it again.
 */
export function checkFileWithUpstream(
  db: Db,
  api: UpstreamApi,
  file: { bytes: Uint8Array; sha256: string },
  identity: IdentityRule,
  opts: CallOptions = {},
): Promise<UpstreamCheck> {
  return keptCheck(`${file.sha256}:${JSON.stringify(identity)}`, async () => {
    const facts: FileLinkFacts[] = [];
    await analyzeImportFile(file.bytes, {
      sha256: file.sha256,
      identity,
      onPlan: (_position, plan, link) => void facts.push(factsOf(plan, link, identity)),
    });
    const check = await checkWithUpstream(api, facts, await identityNamesKnown(db, identity), opts);
    for (const m of check.matches.values()) if (m.kind === "deleted") await markImportedLinkDeleted(db, m.linkId);
    return check;
  });
}

/** What the upstream match needs of one planned link of the file. */
export function factsOf(
  plan: PlannedLink,
  link: Pick<LinkReport, "position" | "line" | "customerUserId" | "institutionId" | "identityKey">,
  rule: IdentityRule,
): FileLinkFacts {
  const body = plan.body;
  const all = [...body.transactions, ...plan.batches.flatMap((b) => b.transactions)];
  const ownTags = new Set<string>();
  for (const r of [DEFAULT_IDENTITY, rule]) {
    const identity = identityOf(body, r);
    if (identity.ok) ownTags.add(identityTag(identity.key));
  }
  return {
    position: link.position,
    line: link.line,
    ...(link.identityKey ? { identityKey: link.identityKey } : {}),
    customerUserId: body.customer_user.id,
    institutionId: body.institution_id,
    accounts: body.accounts.map((a) => ({ id: a.account_id, name: a.name ?? null, mask: a.mask ?? null })),
    tags: body.link_tags ?? null,
    webhook: body.webhook ?? null,
    transactions: all.map((t) => ({ id: t.transaction_id!, accountId: t.account_id })),
    firstDate: plan.firstDate,
    lastDate: plan.lastDate,
    ownTags: [...ownTags],
  };
}

/** The tag names links are known by: this import's, and every earlier import's (whatever mode it used). */
export async function identityNamesKnown(db: Db, rule: IdentityRule): Promise<string[]> {
  const rows = await db.execute<{ name: string }>(sql`
    select distinct params->'identity'->>'name' as name from jobs
    where kind = ${IMPORT_KIND} and params->'identity'->>'kind' = 'tag'
  `);
  const names = new Set(rows.rows.map((r) => r.name).filter(Boolean));
  if (rule.kind === "tag") names.add(rule.name);
  return [...names];
}

/**
 * The check of one file under one identity rule, kept a short while: the preview and the start a minute later read
 * the upstream once. Anything an import does at the upstream (a link imported, transactions added, tags set, a link
 * deleted) forgets every kept check in this process; another instance's changes are seen within CHECK_KEEP_MS, and
 * the job looks a link up again right before importing it.
 */
// On globalThis: the server actions (Next.js's bundle) and the job runner (started beside it) load this module apart,
// and the runner's changes must forget the actions' checks.
const KEPT = Symbol.for("linkdesk.import.upstreamChecks");
const kept: Map<string, { at: number; check: Promise<UpstreamCheck> }> = ((
  globalThis as { [KEPT]?: Map<string, { at: number; check: Promise<UpstreamCheck> }> }
)[KEPT] ??= new Map());
export const CHECK_KEEP_MS = 120_000;

export function forgetUpstreamChecks(): void {
  kept.clear();
}

export function keptCheck(key: string, make: () => Promise<UpstreamCheck>): Promise<UpstreamCheck> {
  const now = Date.now();
  for (const [k, v] of kept) if (now - v.at > CHECK_KEEP_MS) kept.delete(k);
  const found = kept.get(key);
  if (found) return found.check;
  const check = make();
  kept.set(key, { at: now, check });
  // A check that failed as a whole is not kept.
  check.catch(() => kept.delete(key));
  return check;
}

/** Linkdesk's record of the links the upstream matched as the same link, by position: the link it recorded, if any. */
export async function recordedLinks(db: Db, check: UpstreamCheck): Promise<Map<number, string>> {
  const same = [...check.files.values()].filter((f) => f.identityKey && check.matches.get(f.position)?.kind === "same");
  const held = await lookupImported(
    db,
    same.map((f) => f.identityKey!),
  );
  const out = new Map<number, string>();
  for (const f of same) {
    const linkId = held.get(f.identityKey!)?.linkId;
    if (linkId) out.set(f.position, linkId);
  }
  return out;
}

/** The tags besides `tag` that identify a file's link at the upstream: its own identity tags, and its identity-named tags. */
export function identifyingTags(facts: FileLinkFacts, identityNames: readonly string[], tag: string): string[] {
  const names = new Set(identityNames);
  const named = (facts.tags ?? []).filter((t) => names.has(t.slice(0, Math.max(0, t.indexOf(":")))));
  return [...new Set([...facts.ownTags, ...named])].filter((t) => t !== tag).slice(0, 20);
}
