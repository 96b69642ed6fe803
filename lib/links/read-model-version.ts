// How many times this process has changed the read model (table `links`). Kept reads of the read model (a view of the
// links list) carry the version they were read at, so a change made through this instance (a sync's read, a webhook,
// a registration, a purge) shows on the next view at once; another instance's change shows when the kept read expires.
let version = 0;

/** Called by every writer of the read model once its change is committed. */
export function noteReadModelChange(): void {
  version++;
}

export function readModelVersion(): number {
  return version;
}
