"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useAction } from "next-safe-action/hooks";
import { useForm, useWatch } from "react-hook-form";
import { useHydrated } from "@/components/ui/use-hydrated";
import { sendTestWebhook } from "@/lib/actions/link-operations";
import {
  type SendTestWebhookInput,
  TEST_WEBHOOK_EVENT_INFO,
  TEST_WEBHOOK_EVENTS,
  sendTestWebhookSchema,
} from "@/lib/schemas/link-operations";
import { operationProblem } from "./operation-problem";

const NO_WEBHOOK =
  "The link has no webhook, so the upstream has nowhere to send a test. Set its address under Tags and webhook first.";

/**
 * Has the upstream send the link's webhook an example of one event, under an idempotency key Linkdesk makes up. The
 * answer's delivery token is the one the delivery carries (MoneyKit-Delivery-Token), to find it in the receiver's log.
 */
export function TestWebhookForm({ linkId, webhook }: { linkId: string; webhook: string | null }) {
  const form = useForm<SendTestWebhookInput>({
    resolver: zodResolver(sendTestWebhookSchema),
    defaultValues: { linkId, event: TEST_WEBHOOK_EVENTS[0] },
  });
  const sending = useAction(sendTestWebhook);
  const hydrated = useHydrated();
  const event = useWatch({ control: form.control, name: "event" });
  const problem = operationProblem(sending.result, sending.hasErrored);
  const sent = sending.hasSucceeded ? sending.result.data : undefined;
  return (
    <form
      aria-labelledby="test-webhook-heading"
      noValidate
      onSubmit={form.handleSubmit((values) => sending.execute(values))}
      className="space-y-3 rounded-lg border border-slate-200 bg-white p-4"
    >
      <div>
        <h3 id="test-webhook-heading" className="text-base font-semibold text-slate-900">
          Test webhook
        </h3>
        <p className="text-xs text-slate-500">
          {webhook ? (
            <>
              Sent to <span className="break-all font-mono">{webhook}</span>. At most 5 a minute per link upstream.
            </>
          ) : (
            "At most 5 a minute per link upstream."
          )}
        </p>
      </div>
      <div>
        <label htmlFor="test-webhook-event" className="block text-sm font-medium text-slate-700">
          Event
        </label>
        <select
          id="test-webhook-event"
          aria-describedby="test-webhook-event-help"
          className="mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm"
          {...form.register("event")}
        >
          {TEST_WEBHOOK_EVENTS.map((kind) => (
            <option key={kind} value={kind}>
              {TEST_WEBHOOK_EVENT_INFO[kind].label} ({kind})
            </option>
          ))}
        </select>
        <p id="test-webhook-event-help" className="mt-1 text-xs text-slate-500">
          {TEST_WEBHOOK_EVENT_INFO[event]?.meaning}
        </p>
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <button
          type="submit"
          disabled={!webhook || sending.isPending || !hydrated}
          aria-describedby={webhook ? undefined : "test-webhook-disabled"}
          className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
        >
          {sending.isPending ? "Sending…" : "Send test webhook"}
        </button>
        {webhook ? null : (
          <p id="test-webhook-disabled" className="text-sm text-slate-600">
            {NO_WEBHOOK}
          </p>
        )}
      </div>
      {problem && !sending.isPending ? (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          {problem}
        </p>
      ) : null}
      {sent && !sending.isPending ? (
        <div
          role="status"
          className="rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900"
        >
          <p>
            The upstream accepted a test {TEST_WEBHOOK_EVENT_INFO[sent.event].label.toLowerCase()} event and delivers it
            in the background.
          </p>
          <dl className="mt-1 grid grid-cols-[9rem_1fr] gap-x-2 text-xs">
            <dt>Delivery token</dt>
            <dd className="break-all font-mono" data-testid="test-webhook-delivery-token">
              {sent.deliveryToken}
            </dd>
            <dt>Idempotency key</dt>
            <dd className="break-all font-mono">{sent.idempotencyKey}</dd>
          </dl>
        </div>
      ) : null}
    </form>
  );
}
