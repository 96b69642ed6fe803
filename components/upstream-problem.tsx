import { Callout } from "@/components/ui/callout";
import { describeScope, isBudgetExceeded, isBudgetUnavailable, secondsUntil } from "@/lib/budget/budget";
import { describeUpstreamError, isUpstreamError } from "@/lib/upstream/errors";

/** What went wrong with the upstream, in words, for any page that reads from it. */
export function UpstreamProblem({ error }: { error: unknown }) {
  if (isBudgetExceeded(error)) {
    return (
      <Callout tone="warning" title="Waiting for room in the rate budget">
        Linkdesk&rsquo;s share of the upstream&rsquo;s limit ({describeScope(error.blockedBy)}) is used up for this
        minute, so nothing was sent. Next slot in {secondsUntil(error.nextSlotAt)} s: reload then.
      </Callout>
    );
  }
  if (isBudgetUnavailable(error)) {
    return (
      <Callout tone="error" title="The rate budget is unavailable">
        {error.message}
      </Callout>
    );
  }
  if (!isUpstreamError(error)) {
    return (
      <Callout tone="error" title="Something went wrong while talking to the upstream">
        Try again; if it persists, check the server log.
      </Callout>
    );
  }
  const { title, detail } = describeUpstreamError(error);
  return (
    <Callout tone="error" title={title}>
      <p>{detail}</p>
      {error.correlationId ? (
        <p className="mt-1 font-mono text-xs opacity-75">Reference: {error.correlationId}</p>
      ) : null}
    </Callout>
  );
}
