import {
  type DataTableFilter,
  DataTableIgnoredParams,
  DataTableToolbar,
} from "@/components/data-table/data-table-toolbar";
import { webhookOutcomes, webhookVerifications } from "@/lib/db/schema";
import {
  WEBHOOK_KINDS,
  WEBHOOK_OUTCOME_LABELS,
  WEBHOOK_SINCE_SPANS,
  WEBHOOK_VERIFICATION_LABELS,
} from "@/lib/webhooks/labels";
import type { DroppedWebhookFilter, WebhookFilterParam, WebhookFilters } from "@/lib/webhooks/query";

// The Webhooks page's filter bar: the table kit's GET form, so the filters are the URL (shareable, reload-safe). A
// value the lists do not offer (a kind the upstream added, a date typed into the URL) stays selected as itself.

const KIND_OPTIONS = Object.entries(WEBHOOK_KINDS).map(([value, label]) => ({ value, label }));
const VERIFICATION_OPTIONS = webhookVerifications.map((value) => ({
  value,
  label: WEBHOOK_VERIFICATION_LABELS[value],
}));
const OUTCOME_OPTIONS = webhookOutcomes.map((value) => ({ value, label: WEBHOOK_OUTCOME_LABELS[value] }));
const SINCE_OPTIONS = Object.entries(WEBHOOK_SINCE_SPANS).map(([value, span]) => ({ value, label: span.label }));

export const WEBHOOK_PARAM_LABELS: Record<WebhookFilterParam, string> = {
  kind: "Kind",
  verification: "Verification",
  outcome: "Outcome",
  link: "Link id",
  since: "Received since",
  cursor: "Page position",
};

export function WebhooksFilters({ filters }: { filters: WebhookFilters }) {
  const fields: DataTableFilter[] = [
    {
      kind: "select",
      name: "kind",
      label: WEBHOOK_PARAM_LABELS.kind,
      value: filters.kind,
      options: KIND_OPTIONS,
      anyLabel: "Any kind",
    },
    {
      kind: "select",
      name: "verification",
      label: WEBHOOK_PARAM_LABELS.verification,
      value: filters.verification,
      options: VERIFICATION_OPTIONS,
      anyLabel: "Any verification",
    },
    {
      kind: "select",
      name: "outcome",
      label: WEBHOOK_PARAM_LABELS.outcome,
      value: filters.outcome,
      options: OUTCOME_OPTIONS,
      anyLabel: "Any outcome",
    },
    {
      kind: "text",
      name: "link",
      label: WEBHOOK_PARAM_LABELS.link,
      value: filters.link,
      placeholder: "mk_…",
      mono: true,
    },
    {
      kind: "select",
      name: "since",
      label: WEBHOOK_PARAM_LABELS.since,
      value: filters.since?.text,
      options: SINCE_OPTIONS,
      anyLabel: "Any time",
    },
  ];
  return (
    <DataTableToolbar action="/webhooks" label="Filter the webhook events" filters={fields} clearHref="/webhooks" />
  );
}

export function IgnoredWebhookFilters({ dropped }: { dropped: DroppedWebhookFilter[] }) {
  return (
    <DataTableIgnoredParams
      ignored={dropped.map((d) => ({ label: WEBHOOK_PARAM_LABELS[d.param], value: d.value, reason: d.reason }))}
    />
  );
}
