"use client";

import { Callout } from "@/components/ui/callout";

// Keeps the sidebar and header on screen when a page fails; the server log holds the details under the digest.
export default function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="max-w-2xl space-y-4">
      <Callout tone="error" title="This page could not be shown">
        <p>Something failed while preparing it. The rest of Linkdesk still works.</p>
        {error.digest ? <p className="mt-1 font-mono text-xs">Reference: {error.digest}</p> : null}
      </Callout>
      <button
        type="button"
        onClick={reset}
        className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700"
      >
        Try again
      </button>
    </div>
  );
}
