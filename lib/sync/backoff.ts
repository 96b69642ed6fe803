import { isUpstreamError } from "../upstream/errors";
import { sleep } from "./pacer";
import type { SyncFailing } from "./types";

export type { SyncFailing };

// How the sync rides out an upstream that fails (down, refusing the credentials, rate limiting past the budget,
// answering what cannot be read): after a few failed reads in a row it slows to one read at a time, waiting first
// `firstDelayMs` and twice as long after each further failure, up to `maxDelayMs`, and it never gives up. The first
// read that succeeds brings it back to full pace. One streak per run, shared by its listing and its detail reads; its
// state is stored with the run's progress (sync_state), so every instance can say since when and why, and an instance
// taking the run over carries on at the same wait.

export interface SyncBackoff {
  /** Failed reads in a row after which the sync slows down (before that, a failure is one link's bad luck). */
  afterFailures: number;
  /** The first wait once slowed down; each further failed try doubles it. */
  firstDelayMs: number;
  /** The longest wait between two tries. */
  maxDelayMs: number;
}

/**
 * 3 failures in a row, then 5 s, 10 s, 20 s… up to 2 min. An outage is noticed within a few reads, a recovered upstream
 * within 2 minutes, and an outage costs at most 30 calls an hour; a link or two failing on their own (a 5xx for one
 * link) never slows the sync, since a success in between resets the count.
 */
export const SYNC_BACKOFF: Readonly<SyncBackoff> = { afterFailures: 3, firstDelayMs: 5_000, maxDelayMs: 120_000 };

/** A try the streak let through; `done` lets the next one go (one at a time while failing). */
export interface SyncTry {
  /** The try was made while the sync was failing: its failure lengthens the wait. */
  probe: boolean;
  done(): void;
}

const noop = () => undefined;

export class FailureStreak {
  private inARow = 0;
  private since: Date | null = null;
  private failure: string | null = null;
  private delayMs = 0;
  /** The next probe goes at once: the wait before it was spent between runs, or by the holder this run took over. */
  private skipNextWait = false;
  /** Tries wait here for the one before them while failing. */
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: SyncBackoff,
    private readonly onChange: (failing: SyncFailing | null) => void,
    /** Stored by a run before this one (or this run's last holder): the sync carries on failing, at that wait. */
    stored: SyncFailing | null = null,
  ) {
    if (stored) {
      this.inARow = config.afterFailures;
      this.since = stored.since;
      this.failure = stored.failure;
      this.delayMs = Math.min(config.maxDelayMs, Math.max(config.firstDelayMs, stored.retryMs));
      this.skipNextWait = true;
    }
  }

  get failing(): boolean {
    return this.inARow >= this.config.afterFailures;
  }

  /** The state to store, or null when the sync reads normally. */
  state(): SyncFailing | null {
    return this.failing && this.since && this.failure
      ? { since: this.since, failure: this.failure, retryMs: this.delayMs }
      : null;
  }

  /**
   * Waits for this try's turn: at once while reads succeed; while failing, after the try before it is done and the
   * wait has passed. Rejects with the signal's reason once it aborts.
   */
  async take(signal: AbortSignal): Promise<SyncTry> {
    if (!this.failing) return { probe: false, done: noop };
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    const before = this.chain;
    this.chain = before.then(() => mine);
    try {
      await untilAborted(before, signal);
      // Recovered while this try waited: full pace again.
      if (!this.failing) {
        done();
        return { probe: false, done: noop };
      }
      if (this.skipNextWait) this.skipNextWait = false;
      else await sleep(this.delayMs, signal);
      return { probe: true, done };
    } catch (error) {
      done();
      throw error;
    }
  }

  /** A read failed for a reason of the upstream's (`words`); `probe`: it was a try made while failing. */
  failed(words: string, at: Date, probe: boolean): void {
    const wasFailing = this.failing;
    this.inARow++;
    this.since ??= at;
    this.failure = words;
    if (!this.failing) return;
    if (!wasFailing || this.delayMs === 0) this.delayMs = this.config.firstDelayMs;
    else if (probe) this.delayMs = Math.min(this.config.maxDelayMs, this.delayMs * 2);
    this.onChange(this.state());
  }

  /** A read succeeded: the upstream answers again. */
  succeeded(): void {
    const wasFailing = this.failing;
    this.inARow = 0;
    this.since = null;
    this.failure = null;
    this.delayMs = 0;
    this.skipNextWait = false;
    if (wasFailing) this.onChange(null);
  }
}

/** `promise`, or the signal's reason should it abort first. */
function untilAborted(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

/**
 * Why a read failed, in words for a page: "the upstream cannot be reached", "the upstream refuses Linkdesk's
 * credentials", "the upstream answers 503". Never the upstream's own message (it is not Linkdesk's to repeat).
 */
export function failureWords(error: unknown): string {
  if (!isUpstreamError(error)) return "an error inside Linkdesk (see the server log)";
  switch (error.kind) {
    case "network":
      return "the upstream cannot be reached";
    case "timeout":
      return "the upstream does not answer in time";
    case "invalid_response":
      return `the upstream's answers cannot be read${error.field ? ` (field "${error.field}")` : ""}`;
    case "http": {
      const code = error.errorCode ?? "";
      if (error.endpoint === "POST /auth/token" || code.startsWith("api_error.auth."))
        return "the upstream refuses Linkdesk's credentials";
      if (error.status === 429) return "the upstream is rate limiting Linkdesk";
      return `the upstream answers ${error.status}${error.status !== undefined && error.status < 500 && code ? ` (${code})` : ""}`;
    }
  }
}
