import "server-only";
import { and, desc, eq, sql } from "drizzle-orm";
import { type Db, getDb } from "../db/client";
import { links, upstreamReadNotices } from "../db/schema";
import { logger } from "../logger";
import { type ReadNotice, observeReadNotices } from "../upstream";

// What reading the upstream's answers noticed, counted for the Status page: values outside the lists this version of
// Linkdesk knows (the upstream added them since, or kept old ones), and things it could not read and set aside.

export interface ReadNoticeEntry {
  kind: ReadNotice["kind"];
  field: string;
  value: string;
  endpoint: string;
  /** Answers it was seen in since the last write. */
  answers: number;
  seenAt: Date;
  exampleItemId?: string;
  exampleCorrelationId?: string;
}

/** Adds what was seen to the counts: a new row the first time, else the answers added and the last time moved on. */
export async function recordReadNotices(db: Db, entries: readonly ReadNoticeEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insert(upstreamReadNotices)
    .values(
      entries.map((e) => ({
        kind: e.kind,
        field: e.field,
        value: e.value,
        endpoint: e.endpoint,
        firstSeenAt: e.seenAt,
        lastSeenAt: e.seenAt,
        answers: e.answers,
        exampleItemId: e.exampleItemId ?? null,
        exampleCorrelationId: e.exampleCorrelationId ?? null,
      })),
    )
    .onConflictDoUpdate({
      target: [upstreamReadNotices.kind, upstreamReadNotices.field, upstreamReadNotices.value],
      set: {
        answers: sql`${upstreamReadNotices.answers} + excluded.answers`,
        lastSeenAt: sql`greatest(${upstreamReadNotices.lastSeenAt}, excluded.last_seen_at)`,
        exampleItemId: sql`coalesce(excluded.example_item_id, ${upstreamReadNotices.exampleItemId})`,
        exampleCorrelationId: sql`coalesce(excluded.example_correlation_id, ${upstreamReadNotices.exampleCorrelationId})`,
      },
    });
}

/**
 * The key a notice is counted under. An unreadable item's reason ends with what was there ("(it was "x")"), which
 * differs from item to item: counted by the reason alone, so a stream of odd values makes one row, not one each.
 */
export function noticeKey(notice: ReadNotice): { kind: ReadNotice["kind"]; field: string; value: string } {
  const value = notice.kind === "unreadable" ? notice.value.replace(/ \(it was .*\)$/s, "") : notice.value;
  return { kind: notice.kind, field: notice.field, value: value.slice(0, 500) };
}

/**
 * Gathers notices in this process and writes them: a key the first time it is seen at once, then what was seen since
 * at most every `flushMs`. At most `maxKeys` keys are kept, so an upstream sending ever new odd values cannot grow
 * the process (those beyond are logged by the door, and counted once a key frees at the next flush).
 */
export class ReadNoticeRecorder {
  private readonly seen = new Set<string>();
  private pending = new Map<string, ReadNoticeEntry>();
  private timer?: NodeJS.Timeout;
  /** First sightings being written now: a flush waits for them, so what it returns after is all in the table. */
  private readonly writing = new Set<Promise<void>>();

  constructor(
    private readonly write: (entries: ReadNoticeEntry[]) => Promise<void>,
    private readonly options: { flushMs?: number; maxKeys?: number; now?: () => Date } = {},
  ) {}

  note(notices: readonly ReadNotice[], call: { endpoint: string; correlationId: string }): void {
    const now = this.options.now?.() ?? new Date();
    const fresh: ReadNoticeEntry[] = [];
    for (const notice of notices) {
      const key = noticeKey(notice);
      const id = `${key.kind}\u0000${key.field}\u0000${key.value}`;
      const known = this.pending.get(id);
      if (known) {
        known.answers += 1;
        known.seenAt = now;
        continue;
      }
      if (this.pending.size >= (this.options.maxKeys ?? 500)) continue;
      const entry: ReadNoticeEntry = {
        ...key,
        endpoint: call.endpoint,
        answers: 1,
        seenAt: now,
        exampleItemId: notice.itemId,
        exampleCorrelationId: call.correlationId,
      };
      if (this.seen.has(id)) {
        this.pending.set(id, entry);
      } else {
        this.seen.add(id);
        fresh.push(entry);
        // Later sightings gather here until the next flush.
        this.pending.set(id, { ...entry, answers: 0 });
      }
    }
    if (fresh.length > 0) this.track(this.write(fresh).catch(warn));
    this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs ?? 60_000).unref();
  }

  /** Writes what was seen since the last write, and waits for every write under way. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const entries = [...this.pending.values()].filter((e) => e.answers > 0);
    this.pending = new Map();
    if (entries.length > 0) this.track(this.write(entries).catch(warn));
    await Promise.all(this.writing);
  }

  private track(write: Promise<void>): void {
    this.writing.add(write);
    void write.finally(() => this.writing.delete(write));
  }
}

function warn(error: unknown): void {
  try {
    logger().warn({ err: error }, "could not count what the upstream sent that Linkdesk does not know");
  } catch {
    // No logger without configuration (tests, scripts).
  }
}

/** Has every answer of the dashboard's upstream counted here: wired once where the app starts. */
export function countReadNotices(): void {
  const recorder = new ReadNoticeRecorder(async (entries) => recordReadNotices((await getDb()).db, entries));
  observeReadNotices("status page", (notices, call) => recorder.note(notices, call));
}

export interface ReadNoticeRow {
  kind: ReadNotice["kind"];
  field: string;
  value: string;
  endpoint: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
  answers: number;
  exampleItemId: string | null;
  /** How many links in the read model carry the value now; null for a field not kept per link (a transaction's). */
  links: number | null;
}

/** What the Status page lists, from the dashboard's database. */
export async function readNoticesForStatus(): Promise<ReadNoticeRow[]> {
  return listReadNotices((await getDb()).db);
}

/** Newest sightings first. */
export async function listReadNotices(db: Db, { limit = 100 }: { limit?: number } = {}): Promise<ReadNoticeRow[]> {
  const rows = await db.select().from(upstreamReadNotices).orderBy(desc(upstreamReadNotices.lastSeenAt)).limit(limit);
  return Promise.all(
    rows.map(async (row) => ({
      kind: row.kind,
      field: row.field,
      value: row.value,
      endpoint: row.endpoint,
      firstSeenAt: row.firstSeenAt,
      lastSeenAt: row.lastSeenAt,
      answers: row.answers,
      exampleItemId: row.exampleItemId,
      links: row.kind === "unknown_value" ? await linksCarrying(db, row.field, row.value) : null,
    })),
  );
}

/** Links in the read model whose last read carried `value` in `field`, for the fields the read model keeps. */
async function linksCarrying(db: Db, field: string, value: string): Promise<number | null> {
  const where = (() => {
    switch (field) {
      case "link.state":
        return eq(links.state, value);
      case "link.error_code":
        return eq(links.errorCode, value);
      case "link.provider":
        return eq(links.provider, value);
      case "link.products.error_code":
        return sql`${value} = any(${links.productErrorCodes})`;
      case "link.products":
        return sql`${links.raw} -> 'products' ? ${value}`;
      case "link.available_products":
        return sql`${links.raw} -> 'available_products' ? ${value}`;
      default:
        return undefined;
    }
  })();
  if (!where) return null;
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(links)
    .where(and(where));
  return row?.n ?? 0;
}
