"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useAction } from "next-safe-action/hooks";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { useHydrated } from "@/components/ui/use-hydrated";
import { requestReconnect } from "@/lib/actions/reconnect";
import { type RequestReconnectInput, requestReconnectSchema } from "@/lib/schemas/reconnect";
import { operationProblem } from "./operation-problem";

/**
 * Asks the link's end user to reconnect. The request's key is made when the button is shown and sent with every try
 * of the click (a double click, a POST sent again): the server makes one session and one message for it. A new key is
 * made once the request is answered, for the next one.
 */
export function ReconnectButton({ linkId }: { linkId: string }) {
  const [requestKey, setRequestKey] = useState(() => crypto.randomUUID());
  const form = useForm<RequestReconnectInput>({
    resolver: zodResolver(requestReconnectSchema),
    values: { linkId, requestKey },
  });
  const router = useRouter();
  const hydrated = useHydrated();
  const asking = useAction(requestReconnect, {
    onSuccess: () => {
      setRequestKey(crypto.randomUUID());
      router.refresh();
    },
  });
  const problem = operationProblem(asking.result, asking.hasErrored);
  const done = asking.hasSucceeded ? asking.result.data : undefined;
  return (
    <form noValidate onSubmit={form.handleSubmit((values) => asking.execute(values))} className="space-y-3">
      <button
        type="submit"
        disabled={asking.isPending || !hydrated}
        className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
      >
        {asking.isPending ? "Asking…" : "Ask the user to reconnect"}
      </button>
      {problem && !asking.isPending ? (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          {problem}
        </p>
      ) : null}
      {done && !asking.isPending ? (
        <p
          role="status"
          className="rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900"
          data-testid="reconnect-asked"
        >
          {done.replay
            ? `This request was already made (${done.state === "sent" ? "its message is on its way" : done.state}); nothing new was sent.`
            : `Asked: a relink session was made and its message queued for ${done.channels.length === 2 ? "the product's back end and the end user's email" : "the product's back end"}. Its delivery shows below.`}
        </p>
      ) : null}
    </form>
  );
}
