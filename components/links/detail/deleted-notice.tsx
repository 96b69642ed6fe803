import { Callout } from "@/components/ui/callout";
import { DELETED_RETENTION_DAYS } from "@/lib/links/error-codes";
import { utcText } from "./format";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * When the upstream removes a deleted link at the latest: DELETED_RETENTION_DAYS after Linkdesk first saw it deleted.
 * It was deleted at or before that sighting, so the removal is at or before this date. Null when never seen deleted.
 */
export function removalBy(deletedSeenAt: Date | null | undefined): Date | null {
  return deletedSeenAt ? new Date(deletedSeenAt.getTime() + DELETED_RETENTION_DAYS * DAY_MS) : null;
}

export function DeletedNotice({
  deletedSeenAt,
  now = new Date(),
}: {
  deletedSeenAt: Date | null | undefined;
  now?: Date;
}) {
  const by = removalBy(deletedSeenAt);
  return (
    <Callout tone="warning" title="This link was deleted">
      <p data-testid="deleted-removal">
        {by && deletedSeenAt ? (
          <>
            The upstream keeps a deleted link readable for {DELETED_RETENTION_DAYS} days, then removes it:{" "}
            {by > now ? "it will be removed by " : "it was due for removal by "}
            <time dateTime={by.toISOString()} className="font-medium">
              {utcText(by)}
            </time>{" "}
            at the latest ({DELETED_RETENTION_DAYS} days after Linkdesk first saw it deleted, on{" "}
            {utcText(deletedSeenAt)}; sooner if it was deleted before then).
          </>
        ) : (
          <>
            The upstream removes a deleted link within {DELETED_RETENTION_DAYS} days of deletion. Linkdesk has not
            recorded when it was deleted.
          </>
        )}
      </p>
      <p className="mt-1">Its data can no longer be refreshed or corrected.</p>
    </Callout>
  );
}
