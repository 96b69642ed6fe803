import { Callout } from "@/components/ui/callout";
import { describeUpstreamError, isUpstreamError } from "@/lib/upstream/errors";

/** What went wrong with the upstream, in words, for any page that reads from it. */
export function UpstreamProblem({ error }: { error: unknown }) {
  if (!isUpstreamError(error)) {
    return <Callout tone="error" title="Something went wrong while talking to the upstream">Try again; if it persists, check the server log.</Callout>;
  }
  const { title, detail } = describeUpstreamError(error);
  return (
    <Callout tone="error" title={title}>
      <p>{detail}</p>
      {error.correlationId ? <p className="mt-1 font-mono text-xs opacity-75">Reference: {error.correlationId}</p> : null}
    </Callout>
  );
}
