// The sandbox's state: links (seeded lazily, plus those made at run time), their data, link sessions, exchangeable
// tokens and remembered corrections. Everything here is rebuilt by reset().
import { randomUUID } from "node:crypto";
import type { Product } from "./wire-vocabulary";
import { CorrectionMemory } from "./enrich";
import { base58Id, hashSeed, rngFor, type Rng } from "./random";
import { HOSTILE_AVATAR_INSTITUTION_ID, HOSTILE_NAME_INSTITUTION_ID } from "./catalog";
import { makeHostile, seedLinkData } from "./seed-data";
import { ROLE_CYCLE, isDeletedSlot, roleOfSlot, seedLink, seedSkeletons, type SeedRole } from "./seed-links";
import { SyncLog } from "./sync-log";
import { compareTransactionsNewestFirst, type LinkData, type LinkRecord } from "./types";

/** Seeded links of these institutions also carry hostile accounts and transactions (seed-data.ts makeHostile). */
const HOSTILE_INSTITUTIONS = new Set([HOSTILE_AVATAR_INSTITUTION_ID, HOSTILE_NAME_INSTITUTION_ID]);

/** About 250,000 generated transactions (~100 MB) at the default 50 per link. */
const GENERATED_DATA_CACHE_LINKS = 5000;

export interface StoreOptions {
  seed: number;
  links: number;
  transactionsPerLink: number;
  anchorMs: number;
  now: () => number;
  /** Every seeded link's webhook when set (SandboxOptions.seedWebhookUrl). */
  seedWebhookUrl?: string | null;
}

interface LinkEntry {
  id: string;
  createdAtMs: number;
  deleted: boolean;
  seedIndex: number | null;
  slot: number | null;
  record: LinkRecord | null;
  data: LinkData | null;
}

export interface LinkSession {
  token: string;
  customerUserId: string;
  existingLinkId: string | null;
  institutionId: string | null;
  webhook: string | null;
  linkTags: string[];
  products: Product[];
  createdAtMs: number;
  completed: boolean;
}

export interface ExchangeableToken {
  token: string;
  linkId: string;
  used: boolean;
}

/**
 * What GET /links lists. `active` is the upstream's rule (upstream-facts §2: connected, data fetched at least once, not
 * deleted); `all` is every link that is not deleted, whatever its state.
 */
export const LINKS_LISTINGS = ["all", "active"] as const;
export type LinksListing = (typeof LINKS_LISTINGS)[number];

export interface LinksPage {
  links: { link_id: string; created_at: string }[];
  next_cursor: string;
}

/** Cursors are opaque to clients; inside they name the last link served, so new links never shift a page. */
function encodeCursor(entry: LinkEntry): string {
  return Buffer.from(JSON.stringify([entry.createdAtMs, entry.id])).toString("base64url");
}

export function decodeCursor(cursor: string): [number, string] | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(value) && typeof value[0] === "number" && typeof value[1] === "string")
      return [value[0], value[1]];
  } catch {
    // fall through: an unreadable cursor is a validation error for the caller
  }
  return null;
}

/** Newest first; equal created_at is broken by id so the order is total. */
function isAfter(entry: LinkEntry, createdAtMs: number, id: string): boolean {
  return entry.createdAtMs < createdAtMs || (entry.createdAtMs === createdAtMs && entry.id < id);
}

const newestFirst = (a: LinkEntry, b: LinkEntry) =>
  isAfter(a, b.createdAtMs, b.id) ? 1 : isAfter(b, a.createdAtMs, a.id) ? -1 : 0;

/** Seed roles whose record is not `connected` (seed-links.ts seedLink); every other role is connected and refreshed. */
const INACTIVE_SEED_ROLES = new Set<SeedRole["kind"]>(["error", "connecting", "awaiting_token_exchange", "deleted"]);

/**
 * Active as the upstream lists links: connected, and at least one product refreshed (data fetched at least once). A
 * seeded link nobody has read yet is judged by its role, so the listing never has to generate 100,000 records.
 */
function isActive(entry: LinkEntry): boolean {
  if (entry.deleted) return false;
  if (entry.record) {
    return (
      entry.record.state === "connected" &&
      Object.values(entry.record.products).some((status) => Boolean(status.refreshed_at))
    );
  }
  return entry.slot !== null && !INACTIVE_SEED_ROLES.has(roleOfSlot(entry.slot).kind);
}

const isListed: Record<LinksListing, (entry: LinkEntry) => boolean> = {
  all: (entry) => !entry.deleted,
  active: isActive,
};

export class Store {
  private entries: LinkEntry[] = [];
  private byId = new Map<string, LinkEntry>();
  /**
   * Links by customer user id, deleted ones included (GET /users/{id}/links serves them until purged, which the sandbox
   * never does). Links made at run time join when added; seeded links join all at once on the first lookup, because a
   * seeded link's user is known only from its generated record (100,000 of them take about a second to generate).
   */
  private byUser = new Map<string, LinkEntry[]>();
  private seededUsersIndexed = false;
  private runtimeCounter = 0;
  /** Least recently used first (a Map keeps insertion order; a hit is moved to the end). */
  private readonly generated = new Map<string, LinkData>();
  readonly corrections = new CorrectionMemory();
  readonly sessions = new Map<string, LinkSession>();
  readonly exchangeTokens = new Map<string, ExchangeableToken>();
  /** Changes to a link's transactions, for GET /links/{id}/transactions/sync; none for a link nobody changed. */
  private syncLogs = new Map<string, SyncLog>();
  /** Runtime randomness (ids of new links and imported rows), seeded so a scripted run replays identically. */
  runtimeRng: Rng;

  constructor(private readonly options: StoreOptions) {
    this.runtimeRng = rngFor(options.seed, "runtime");
    this.reset();
  }

  get anchorMs(): number {
    return this.options.anchorMs;
  }

  reset(): void {
    const skeletons = seedSkeletons(this.options.seed, this.options.links, this.options.anchorMs);
    this.entries = skeletons.map((skeleton) => ({
      id: skeleton.id,
      createdAtMs: skeleton.createdAtMs,
      deleted: isDeletedSlot(skeleton.slot),
      seedIndex: skeleton.index,
      slot: skeleton.slot,
      record: null,
      data: null,
    }));
    this.byId = new Map(this.entries.map((entry) => [entry.id, entry]));
    this.byUser = new Map();
    this.seededUsersIndexed = false;
    this.runtimeCounter = 0;
    this.generated.clear();
    this.runtimeRng = rngFor(this.options.seed, "runtime");
    this.corrections.clear();
    this.sessions.clear();
    this.exchangeTokens.clear();
    this.syncLogs = new Map();
  }

  get linkCount(): number {
    return this.entries.length;
  }

  private materialize(entry: LinkEntry): LinkRecord {
    entry.record ??= this.generateSeeded(entry);
    return entry.record;
  }

  private generateSeeded(entry: LinkEntry): LinkRecord {
    if (entry.seedIndex === null || entry.slot === null) throw new Error(`link ${entry.id} has no record`);
    return seedLink(
      this.options.seed,
      { index: entry.seedIndex, id: entry.id, createdAtMs: entry.createdAtMs, slot: entry.slot },
      this.options.anchorMs,
      this.options.links,
      this.options.seedWebhookUrl ?? null,
    );
  }

  private indexByUser(entry: LinkEntry, customerUserId: string | null): void {
    if (customerUserId === null) return;
    const entries = this.byUser.get(customerUserId);
    if (entries) entries.push(entry);
    else this.byUser.set(customerUserId, [entry]);
  }

  /** Every link of one customer user, in any state (deleted included), newest first; none for an unknown user. */
  linksOfUser(customerUserId: string): LinkRecord[] {
    if (!this.seededUsersIndexed) {
      this.seededUsersIndexed = true;
      for (const entry of this.entries) {
        if (entry.seedIndex === null) continue;
        // Generated only to learn the user, then dropped: keeping 100,000 records would cost far more memory.
        this.indexByUser(entry, (entry.record ?? this.generateSeeded(entry)).customerUserId);
      }
    }
    return [...(this.byUser.get(customerUserId) ?? [])].sort(newestFirst).map((entry) => this.materialize(entry));
  }

  /**
   * Every seeded link as it is now, newest first. A link nobody has read is generated for the look and dropped, as in
   * linksOfUser: keeping 100,000 records would cost far more memory than generating them again.
   */
  *seededLinks(): Generator<LinkRecord> {
    for (const entry of this.entries) {
      if (entry.seedIndex !== null) yield entry.record ?? this.generateSeeded(entry);
    }
  }

  getLink(id: string): LinkRecord | undefined {
    const entry = this.byId.get(id);
    return entry ? this.materialize(entry) : undefined;
  }

  /**
   * Accounts and transactions of a link, generated on first access for seeded and session-made links. Generated data
   * that nobody changed sits in a bounded cache and is regenerated identically after eviction: 100,000 links of 50
   * transactions would otherwise hold gigabytes once a benchmark has read them all. `forUpdate` pins the data to the
   * link for good, so a correction is never lost.
   */
  dataOf(link: LinkRecord, options: { forUpdate?: boolean } = {}): LinkData {
    const entry = this.byId.get(link.link_id);
    if (!entry) throw new Error(`unknown link ${link.link_id}`);
    if (entry.data) return entry.data;
    let data = this.generated.get(link.link_id);
    if (data) {
      this.generated.delete(link.link_id);
    } else {
      data =
        link.dataSeed === null
          ? { accounts: [], transactions: [] }
          : seedLinkData(
              link.dataSeed,
              link.origin === "seed" ? this.options.anchorMs : link.createdAtMs,
              this.options.transactionsPerLink,
            );
      if (link.origin === "seed" && HOSTILE_INSTITUTIONS.has(link.institution_id)) data = makeHostile(data);
    }
    if (options.forUpdate || link.dataSeed === null) {
      entry.data = data;
      return data;
    }
    this.generated.set(link.link_id, data);
    if (this.generated.size > GENERATED_DATA_CACHE_LINKS) {
      const oldest = this.generated.keys().next().value;
      if (oldest !== undefined) this.generated.delete(oldest);
    }
    return data;
  }

  newLinkId(): string {
    for (;;) {
      const id = base58Id(rngFor(this.options.seed, "runtime-link", this.runtimeCounter++), "mk_");
      if (!this.byId.has(id)) return id;
    }
  }

  newDataSeed(): number {
    return hashSeed(this.options.seed, "runtime-data", this.runtimeCounter++);
  }

  addLink(record: LinkRecord, data: LinkData | null): void {
    const entry: LinkEntry = {
      id: record.link_id,
      createdAtMs: record.createdAtMs,
      deleted: record.state === "deleted",
      seedIndex: null,
      slot: null,
      record,
      data,
    };
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const other = this.entries[mid];
      if (other && isAfter(other, entry.createdAtMs, entry.id)) high = mid;
      else low = mid + 1;
    }
    this.entries.splice(low, 0, entry);
    this.byId.set(entry.id, entry);
    this.indexByUser(entry, record.customerUserId);
  }

  /** The link stays in its user's index: GET /users/{id}/links serves deleted links until they are purged. */
  markDeleted(link: LinkRecord): void {
    link.state = "deleted";
    link.deletedAtMs = this.options.now();
    const entry = this.byId.get(link.link_id);
    if (entry) entry.deleted = true;
  }

  /** Any state, as a test asks for it (POST /_sandbox/links/{id}/state); a deleted link can come back. */
  setState(link: LinkRecord, state: LinkRecord["state"], errorCode: LinkRecord["error_code"]): void {
    const nowIso = new Date(this.options.now()).toISOString();
    if (state === "deleted") {
      this.markDeleted(link);
    } else {
      link.state = state;
      link.deletedAtMs = null;
      const entry = this.byId.get(link.link_id);
      if (entry) entry.deleted = false;
    }
    link.error_code = state === "error" ? errorCode : null;
    if (state === "error" && (errorCode === "auth_expired" || errorCode === "invalid_credentials"))
      link.auth_expired_at ??= nowIso;
    if (state === "connected") link.auth_expired_at = null;
  }

  syncLogOf(linkId: string): SyncLog | undefined {
    return this.syncLogs.get(linkId);
  }

  private syncLogFor(linkId: string): SyncLog {
    let log = this.syncLogs.get(linkId);
    if (!log) {
      log = new SyncLog();
      this.syncLogs.set(linkId, log);
    }
    return log;
  }

  /** A transaction of the link changed in place (a correction): sync reports it as updated. */
  noteTransactionsUpdated(link: LinkRecord, transactionIds: string[]): void {
    this.syncLogFor(link.link_id).updated(transactionIds);
  }

  /**
   * Imported values are keyed by their original id (the importer's transaction_id) within a link: importing a
   * transaction again replaces the earlier import of it (keeping the id the upstream gave it), never doubles it. Within
   * one request the last one of an original id wins. Transactions imported without an id are always added.
   */
  appendTransactions(link: LinkRecord, additions: LinkData["transactions"]): { created: number; updated: number } {
    const data = this.dataOf(link, { forUpdate: true });
    const latest = new Map<string, LinkData["transactions"][number]>();
    for (const addition of additions) if (addition.original_id) latest.set(addition.original_id, addition);
    const fresh = additions.filter(
      (addition) => !addition.original_id || latest.get(addition.original_id) === addition,
    );
    const replaced = new Map<string, string>();
    if (latest.size > 0) {
      data.transactions = data.transactions.filter((existing) => {
        if (!existing.original_id || !latest.has(existing.original_id)) return true;
        replaced.set(existing.original_id, existing.transaction_id);
        return false;
      });
      for (const addition of fresh) {
        const earlierId = addition.original_id ? replaced.get(addition.original_id) : undefined;
        if (earlierId) addition.transaction_id = earlierId;
      }
    }
    data.transactions.push(...fresh);
    data.transactions.sort(compareTransactionsNewestFirst);
    // For sync: a transaction imported again keeps its id and counts as updated; the rest are new.
    const isReplacement = (addition: LinkData["transactions"][number]) =>
      Boolean(addition.original_id && replaced.has(addition.original_id));
    const updated = fresh.filter(isReplacement).map((addition) => addition.transaction_id);
    const created = fresh.filter((addition) => !isReplacement(addition)).map((addition) => addition.transaction_id);
    const log = this.syncLogFor(link.link_id);
    log.created(created);
    log.updated(updated);
    return { created: created.length, updated: updated.length };
  }

  /**
   * `active` (the default): only the links the upstream lists (connected, refreshed at least once), so a link whose
   * first connection failed, an import without credentials or a link stuck connecting is never listed. `all`: every
   * link that is not deleted, whatever its state, for tests about the listing. Either way the cursor names the last
   * link served, so the filter never shifts a page.
   */
  listLinks(cursor: [number, string] | null, limit: number, listing: LinksListing = "all"): LinksPage {
    const listed = isListed[listing];
    let low = 0;
    if (cursor) {
      let high = this.entries.length;
      while (low < high) {
        const mid = (low + high) >>> 1;
        const entry = this.entries[mid];
        if (entry && isAfter(entry, cursor[0], cursor[1])) high = mid;
        else low = mid + 1;
      }
    }
    const links: LinksPage["links"] = [];
    let last: LinkEntry | null = null;
    let i = low;
    for (; i < this.entries.length && links.length < limit; i++) {
      const entry = this.entries[i];
      if (!entry || !listed(entry)) continue;
      links.push({ link_id: entry.id, created_at: new Date(entry.createdAtMs).toISOString() });
      last = entry;
    }
    let more = false;
    for (; i < this.entries.length; i++) {
      const entry = this.entries[i];
      if (entry && listed(entry)) {
        more = true;
        break;
      }
    }
    return { links, next_cursor: more && last ? encodeCursor(last) : "" };
  }

  /**
   * Every link id the sandbox holds, deleted links included, oldest first: the ids a product's back end has recorded as
   * it created links (GET /_sandbox/back-end/link-ids). The sandbox never purges, so none is left out.
   */
  allLinkIds(): string[] {
    return this.entries.map((entry) => entry.id).reverse();
  }

  /** Whose each link is, as the product's back end recorded it when it made the link (oldest first, like allLinkIds). */
  linkCustomers(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const entry of [...this.entries].reverse()) {
      // A seeded link nobody read is generated to learn its user and dropped, as in linksOfUser.
      const customer = (entry.record ?? this.generateSeeded(entry)).customerUserId;
      if (customer !== null) out[entry.id] = customer;
    }
    return out;
  }

  createSession(session: Omit<LinkSession, "token" | "completed" | "createdAtMs">): LinkSession {
    const created: LinkSession = {
      ...session,
      token: `sandbox_${randomUUID()}`,
      completed: false,
      createdAtMs: this.options.now(),
    };
    this.sessions.set(created.token, created);
    return created;
  }

  createExchangeToken(linkId: string): ExchangeableToken {
    const token: ExchangeableToken = { token: randomUUID(), linkId, used: false };
    this.exchangeTokens.set(token.token, token);
    return token;
  }

  /** Seeded links by role, from the newest cycle: stable ids for demos and end-to-end fixtures. */
  fixtures(): Record<string, unknown> {
    const byRole = new Map<string, string[]>();
    const add = (key: string, id: string) => byRole.set(key, [...(byRole.get(key) ?? []), id]);
    for (const entry of this.entries) {
      if (entry.slot === null || entry.seedIndex === null || entry.seedIndex >= ROLE_CYCLE) continue;
      add(roleKey(roleOfSlot(entry.slot)), entry.id);
    }
    const out: Record<string, unknown> = {};
    for (const [key, ids] of [...byRole].sort(([a], [b]) => a.localeCompare(b))) out[key] = ids;
    return out;
  }
}

function roleKey(role: SeedRole): string {
  switch (role.kind) {
    case "error":
      return `error:${role.errorCode}`;
    case "provider":
      return `provider:${role.provider}`;
    case "product_error":
      return `product_error:${role.productError}`;
    default:
      return role.kind;
  }
}
