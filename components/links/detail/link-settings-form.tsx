"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useAction } from "next-safe-action/hooks";
import { useRouter } from "next/navigation";
import { useForm } from "react-hook-form";
import type { z } from "zod";
import { useHydrated } from "@/components/ui/use-hydrated";
import { updateLink } from "@/lib/actions/link-operations";
import {
  MAX_TAGS,
  TAG_MAX_LENGTH,
  type UpdateLinkFields,
  updateLinkDefaults,
  updateLinkSchema,
} from "@/lib/schemas/link-operations";
import { operationProblem } from "./operation-problem";

const FIELDS = ["webhook", "tags"] as const;

const inputClass =
  "mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 font-mono text-sm aria-[invalid=true]:border-red-400 focus:border-indigo-500 focus:outline-none";

/**
 * The link's webhook address and tags, saved together (PATCH /links/{id}, at most 4 a minute per link upstream). The
 * form starts from what the page shows; the server refuses the change if the link has changed since.
 */
export function LinkSettingsForm({ defaults }: { defaults: UpdateLinkFields }) {
  const router = useRouter();
  const hydrated = useHydrated();
  const form = useForm<UpdateLinkFields, unknown, z.output<typeof updateLinkSchema>>({
    resolver: zodResolver(updateLinkSchema),
    defaultValues: defaults,
  });
  const { errors, isDirty } = form.formState;
  const saving = useAction(updateLink, {
    onSuccess: ({ data }) => {
      // The link as the upstream answered it is what the next change starts from.
      form.reset(
        updateLinkDefaults({ link_id: defaults.linkId, webhook: data.after.webhook, link_tags: data.after.tags }),
      );
      router.refresh();
    },
    onError: ({ error }) => {
      for (const field of FIELDS) {
        const message = error.validationErrors?.fieldErrors[field]?.[0];
        if (message) form.setError(field, { type: "server", message });
      }
    },
  });
  const fieldErrorsOnly =
    saving.hasErrored &&
    !saving.result.serverError &&
    (saving.result.validationErrors?.formErrors.length ?? 0) === 0 &&
    saving.result.validationErrors;
  const problem = fieldErrorsOnly ? null : operationProblem(saving.result, saving.hasErrored);
  const saved = saving.hasSucceeded ? saving.result.data : undefined;
  const error = (field: (typeof FIELDS)[number]) => errors[field]?.message;
  const describedBy = (field: (typeof FIELDS)[number]) =>
    [`link-${field}-help`, error(field) ? `link-${field}-error` : undefined].filter(Boolean).join(" ");

  return (
    <form
      aria-labelledby="link-settings-heading"
      noValidate
      onSubmit={form.handleSubmit((values) => saving.execute(values))}
      className="space-y-3 rounded-lg border border-slate-200 bg-white p-4"
    >
      <div>
        <h3 id="link-settings-heading" className="text-base font-semibold text-slate-900">
          Tags and webhook
        </h3>
        <p className="text-xs text-slate-500">Saved upstream together. At most 4 changes a minute per link upstream.</p>
      </div>
      <div>
        <label htmlFor="link-webhook" className="block text-sm font-medium text-slate-700">
          Webhook address
        </label>
        <input
          id="link-webhook"
          type="url"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          placeholder="https://hooks.example.com/moneykit"
          aria-invalid={error("webhook") ? true : undefined}
          aria-describedby={describedBy("webhook")}
          className={inputClass}
          // In the server's HTML too, not only once the script has run.
          defaultValue={defaults.webhook}
          {...form.register("webhook")}
        />
        <p id="link-webhook-help" className="mt-1 text-xs text-slate-500">
          Where the upstream sends this link&rsquo;s webhooks: an https:// or http:// address. Leave it empty to remove
          the webhook.
        </p>
        {error("webhook") ? (
          <p id="link-webhook-error" className="mt-1 text-sm text-red-700">
            {error("webhook")}
          </p>
        ) : null}
      </div>
      <div>
        <label htmlFor="link-tags" className="block text-sm font-medium text-slate-700">
          Tags
        </label>
        <textarea
          id="link-tags"
          rows={4}
          spellCheck={false}
          placeholder={"team:retail\nregion:eu"}
          aria-invalid={error("tags") ? true : undefined}
          aria-describedby={describedBy("tags")}
          className={inputClass}
          defaultValue={defaults.tags}
          {...form.register("tags")}
        />
        <p id="link-tags-help" className="mt-1 text-xs text-slate-500">
          One tag a line, usually key:value. Each starts with a letter or digit and has at most {TAG_MAX_LENGTH}{" "}
          characters; at most {MAX_TAGS}
          tags. Empty removes them all.
        </p>
        {error("tags") ? (
          <p id="link-tags-error" className="mt-1 text-sm text-red-700">
            {error("tags")}
          </p>
        ) : null}
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <button
          type="submit"
          disabled={!isDirty || saving.isPending || !hydrated}
          className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
        >
          {saving.isPending ? "Saving…" : "Save tags and webhook"}
        </button>
        {isDirty && !saving.isPending ? (
          <button
            type="button"
            onClick={() => form.reset()}
            className="rounded-md px-2 py-1.5 text-sm text-slate-600 underline hover:bg-slate-50"
          >
            Undo my edits
          </button>
        ) : null}
      </div>
      {problem && !saving.isPending ? (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          {problem}
        </p>
      ) : null}
      {saved && !saving.isPending && !isDirty ? (
        <p
          role="status"
          className="rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900"
        >
          Saved upstream. Webhook:{" "}
          {saved.after.webhook ? <span className="break-all font-mono">{saved.after.webhook}</span> : "none"}. Tags:{" "}
          {saved.after.tags.length ? <span className="font-mono">{saved.after.tags.join(", ")}</span> : "none"}.
        </p>
      ) : null}
    </form>
  );
}
