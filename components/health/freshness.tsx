import Link from "next/link";
import type { ReadModelFreshness } from "@/lib/webhooks/freshness";
import { formatCount, formatShare, formatUtc, timeAgo } from "./format";

/**
 * How fresh the read model is: are the upstream's webhooks arriving (the newest event's age, the last day's counts),
 * and how many links were read or told about by an event in the last hour. Polling alone reads each link once a
 * sync pass; with webhooks flowing a change shows within seconds.
 */
export function Freshness({ freshness, now = new Date() }: { freshness: ReadModelFreshness; now?: Date }) {
  const { newestEventAt, verifiedLastDay, refusedLastDay, links, freshWithinHour, neverRead } = freshness;
  return (
    <p className="text-sm text-slate-600" data-testid="health-freshness">
      {newestEventAt ? (
        <>
          Newest webhook event{" "}
          <time dateTime={newestEventAt.toISOString()} title={formatUtc(newestEventAt)}>
            {timeAgo(newestEventAt, now)}
          </time>
          ;{" "}
        </>
      ) : (
        <>No webhook event received yet: changes show after the sync reads each link; </>
      )}
      <Link href="/webhooks" className="text-indigo-700 underline underline-offset-2 hover:text-indigo-900">
        {formatCount(verifiedLastDay)} verified{refusedLastDay > 0 ? `, ${formatCount(refusedLastDay)} refused` : ""} in
        24 h
      </Link>
      .{" "}
      {links > 0
        ? `${formatCount(freshWithinHour)} of ${formatCount(links)} links (${formatShare(freshWithinHour / links)}) read or told about by an event in the last hour`
        : "No links yet"}
      {neverRead > 0 ? `; ${formatCount(neverRead)} known by id only, read next` : ""}.
    </p>
  );
}
