import "server-only";
import { and, asc, desc, lte, ne } from "drizzle-orm";
import type { Db } from "../db/client";
import { linkSnapshots } from "../db/schema";
import { CHANGE_WINDOWS, type ChangeWindow, type HealthBaseline, isWhole } from "./health-change";

// The snapshot Health's changes are measured from: the newest taken at least the window ago that is whole, that is
// taken once the read model had read nearly every link it listed (a snapshot from the first minutes of a first sync
// counts a few links read, and every later count would look like a surge). The demo's made-up history is never a
// baseline: it is of another fleet's size.

export async function healthBaseline(
  db: Db,
  window: ChangeWindow,
  now = new Date(),
): Promise<{ baseline: HealthBaseline | null; oldest: Date | null }> {
  const cutoff = new Date(now.getTime() - CHANGE_WINDOWS[window]);
  const candidates = await db
    .select()
    .from(linkSnapshots)
    .where(and(ne(linkSnapshots.source, "demo"), lte(linkSnapshots.at, cutoff)))
    .orderBy(desc(linkSnapshots.at))
    .limit(50);
  const whole = candidates.find((s) =>
    isWhole(
      s.total,
      Object.values(s.byState).reduce((sum, n) => sum + n, 0),
    ),
  );
  if (whole)
    return {
      baseline: { at: whole.at, total: whole.total, byState: whole.byState, byErrorCode: whole.byErrorCode },
      oldest: null,
    };
  const [oldest] = await db
    .select({ at: linkSnapshots.at })
    .from(linkSnapshots)
    .where(ne(linkSnapshots.source, "demo"))
    .orderBy(asc(linkSnapshots.at))
    .limit(1);
  return { baseline: null, oldest: oldest?.at ?? null };
}
