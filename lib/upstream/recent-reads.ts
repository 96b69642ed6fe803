import type { CallOptions } from "./index";

// Upstream reads kept briefly in this process, by key (a link id): views asking within the max age share one read,
// views asking at once share the read under way, and a failed read is not kept (the next view tries again). The least
// recently read keys go first past `maxKeys`. Each instance of the dashboard keeps its own; the rate budget they share
// still counts every call.

export type Recent<T> = T & {
  /** When the upstream was read (ms since the epoch). */
  readAt: number;
};

interface Entry<T> {
  readAt: number;
  settled: Recent<T> | null;
  pending: Promise<Recent<T>>;
}

export interface RecentReadsOptions {
  maxAgeMs: number;
  maxKeys: number;
  now?: () => number;
}

export class RecentReads<T extends object> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly read: (key: string, opts: CallOptions) => Promise<T>,
    private readonly options: RecentReadsOptions,
  ) {}

  protected now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /**
   * The key's value, read from the upstream unless a read younger than the max age exists (or is under way). A read
   * from before `changedAt` (ms; the upstream said the value changed then, e.g. by a webhook) is not used.
   */
  get(key: string, opts: CallOptions = {}, changedAt?: number | null): Promise<Recent<T>> {
    const entry = this.entries.get(key);
    if (
      entry &&
      this.now() - entry.readAt < this.options.maxAgeMs &&
      !(changedAt != null && entry.readAt < changedAt)
    ) {
      // Most recently used last, so the oldest is the first to go.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return entry.pending;
    }
    const readAt = this.now();
    const pending = this.read(key, opts).then((value) => {
      const settled: Recent<T> = { ...value, readAt };
      if (this.entries.get(key) === fresh) fresh.settled = settled;
      return settled;
    });
    const fresh: Entry<T> = { readAt, settled: null, pending };
    pending.catch(() => {
      if (this.entries.get(key) === fresh) this.entries.delete(key);
    });
    this.entries.set(key, fresh);
    while (this.entries.size > this.options.maxKeys) this.entries.delete(this.entries.keys().next().value!);
    return pending;
  }

  /**
   * Rewrites the kept value (a change whose result the upstream just answered). A read still under way may predate the
   * change, so it is forgotten instead.
   */
  protected revise(key: string, change: (settled: Recent<T>) => Recent<T>): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    if (!entry.settled) {
      this.entries.delete(key);
      return;
    }
    const settled = change(entry.settled);
    this.entries.set(key, { readAt: entry.readAt, settled, pending: Promise.resolve(settled) });
  }

  /** The next view of the key reads the upstream (a change whose result Linkdesk did not see). */
  forget(key: string): void {
    this.entries.delete(key);
  }
}
