// The sync's shapes as the rest of Linkdesk sees them. Pure module (no server-only): pages and client components import
// these types; the code that produces them lives beside this file.

export const SYNC_PHASES = ["idle", "listing", "details"] as const;
export type SyncPhase = (typeof SYNC_PHASES)[number];

/** What a page shows about the links read model's sync: "Synced 2 min ago · 1,234 / 2,000 links, about 3 min left". */
export interface SyncStatus {
  /** "listing": walking GET /links; "details": reading GET /links/{id}; "idle": no run, or none unfinished. */
  phase: SyncPhase;
  /** While listing: links listed so far. While reading details: links read so far of `total`. */
  done: number;
  /** Links this run reads the details of (0 while listing: not known yet). */
  total: number;
  /** Seconds until the run has read every link at the sync's pace; null while listing or idle. */
  etaSeconds: number | null;
  runStartedAt: Date | null;
  /** When the last complete run ended: how fresh the read model is as a whole. */
  runFinishedAt: Date | null;
  /** The last problem of the current or last run (a link that could not be read, why a run stopped), in Linkdesk's words. */
  lastError: string | null;
  /** An instance holds the sync and its heartbeat is fresh. */
  running: boolean;
  /** A "refresh all" is waiting for the next run. */
  requestedAt: Date | null;
  /** Since when and why the sync's reads fail, and how often it tries; null while they succeed. */
  failing: SyncFailing | null;
}

/** The sync's reads are failing: stored with its progress (sync_state) while they do, cleared by the first success. */
export interface SyncFailing {
  /** The first failed read of the streak. */
  since: Date;
  /** The last failure, in Linkdesk's words: "the upstream answers 503". */
  failure: string;
  /** The wait between tries now, in milliseconds. */
  retryMs: number;
}

/** What "refresh now" answers for one link: the app's view of the Link object just read. */
export interface RefreshedLink {
  linkId: string;
  state: string;
  errorCode: string | null;
  institutionName: string;
  seenAt: string;
}
