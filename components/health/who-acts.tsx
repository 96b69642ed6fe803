import Link from "next/link";
import { LINK_ERROR_INFO, WHO_ACTS_LABELS, type WhoActs } from "@/lib/links/error-codes";
import type { WhoActsShare } from "@/lib/links/health-summary";
import { WHO_ACTS_COLORS } from "./colors";
import { formatCount, formatShare } from "./format";
import { linksHref } from "./links-href";

const WHO_ACTS_HINTS: Record<WhoActs, string> = {
  user: "The end user must reconnect or act at their institution: a relink through a new link session with existing_link_id.",
  wait: "An outage at the institution or the data provider; these links recover by themselves.",
  service: "Faults inside the linking service; report persistent ones to its support with the link ids.",
};

/** A group's total opens the list of the links whose error code that party must resolve. */
function groupHref(group: WhoActs): string {
  return linksHref({ who_acts: group });
}

/** Who must act on the links in error: the user, a wait on an institution or provider, or the service itself. */
export function WhoActsSplit({
  groups,
  withErrorCode,
  canCampaign = false,
}: {
  groups: WhoActsShare[];
  withErrorCode: number;
  /** The viewer may start reconnect campaigns: the user's group offers one over its links. */
  canCampaign?: boolean;
}) {
  if (withErrorCode === 0) return <p className="text-sm text-slate-500">No link has an error code.</p>;
  return (
    <div className="space-y-4">
      <div aria-hidden="true" className="flex h-4 w-full overflow-hidden rounded bg-slate-100">
        {groups.map((g) =>
          g.count > 0 ? (
            <span key={g.whoActs} className={WHO_ACTS_COLORS[g.whoActs].bar} style={{ width: `${g.share * 100}%` }} />
          ) : null,
        )}
      </div>
      <div className="grid gap-4 md:grid-cols-3">
        {groups.map((g) => {
          const href = groupHref(g.whoActs);
          const total = (
            <>
              <span className={`text-2xl font-semibold tabular-nums ${WHO_ACTS_COLORS[g.whoActs].text}`}>
                {formatShare(g.share)}
              </span>
              <span className="ml-2 text-sm tabular-nums text-slate-600">{formatCount(g.count)} links</span>
            </>
          );
          return (
            <div key={g.whoActs} data-testid={`who-acts-${g.whoActs}`}>
              <h3 className="flex items-center gap-2 text-sm font-medium text-slate-800">
                <span
                  aria-hidden="true"
                  className={`inline-block h-2.5 w-2.5 rounded-sm ${WHO_ACTS_COLORS[g.whoActs].bar}`}
                />
                {WHO_ACTS_LABELS[g.whoActs]}
              </h3>
              <p className="mt-1">
                {href ? (
                  <Link href={href} className="hover:underline">
                    {total}
                  </Link>
                ) : (
                  total
                )}
              </p>
              <p className="mt-1 text-xs text-slate-500">{WHO_ACTS_HINTS[g.whoActs]}</p>
              {canCampaign && g.whoActs === "user" && g.count > 0 ? (
                <Link
                  href="/reconnect?who_acts=user"
                  className="mt-1 inline-block text-sm font-medium text-indigo-700 underline"
                >
                  Ask them to reconnect…
                </Link>
              ) : null}
              {g.codes.length > 0 ? (
                <ul className="mt-2 space-y-0.5 text-sm">
                  {g.codes.map((c) => (
                    <li key={c.errorCode}>
                      <Link
                        href={linksHref({ error_code: c.errorCode })}
                        className="flex justify-between gap-2 hover:underline"
                      >
                        <span className="truncate text-slate-700">{LINK_ERROR_INFO[c.errorCode].label}</span>
                        <span className="tabular-nums text-slate-900">{formatCount(c.count)}</span>
                      </Link>
                    </li>
                  ))}
                </ul>
              ) : null}
            </div>
          );
        })}
      </div>
    </div>
  );
}
