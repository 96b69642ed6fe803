"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useAction } from "next-safe-action/hooks";
import Link from "next/link";
import { useForm } from "react-hook-form";
import { createSandboxExchangeToken, exchangeToken } from "@/lib/actions/links";
import { type ExchangeTokenInput, exchangeTokenSchema } from "@/lib/schemas/links";
import { useHydrated } from "@/components/ui/use-hydrated";

export function ExchangeForm({ demo }: { demo: boolean }) {
  const form = useForm<ExchangeTokenInput>({
    resolver: zodResolver(exchangeTokenSchema),
    defaultValues: { exchangeableToken: "" },
  });
  const exchange = useAction(exchangeToken);
  // Before the script runs, a submit would go out as a GET with the token in the address: the buttons wait, disabled.
  const hydrated = useHydrated();
  const sandbox = useAction(createSandboxExchangeToken, {
    onSuccess: ({ data }) => form.setValue("exchangeableToken", data.exchangeableToken, { shouldValidate: true }),
  });
  const fieldError =
    form.formState.errors.exchangeableToken?.message ??
    exchange.result.validationErrors?.fieldErrors?.exchangeableToken?.[0];
  const link = exchange.result.data?.link;

  return (
    <div className="max-w-2xl space-y-4">
      <form
        onSubmit={form.handleSubmit((values) => exchange.execute(values))}
        noValidate
        className="space-y-3 rounded-lg border border-slate-200 bg-white p-4"
      >
        <div>
          <label htmlFor="exchangeable-token" className="block text-sm font-medium text-slate-700">
            Exchangeable token
          </label>
          <input
            id="exchangeable-token"
            autoComplete="off"
            spellCheck={false}
            placeholder="123e4567-e89b-12d3-a456-426614174000"
            aria-invalid={fieldError ? true : undefined}
            aria-describedby="exchangeable-token-help"
            className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 font-mono text-sm"
            {...form.register("exchangeableToken")}
          />
          <p id="exchangeable-token-help" className="mt-1 text-xs text-slate-500">
            The token your front end received in the linking flow&rsquo;s success callback. It can be exchanged once.
          </p>
          {fieldError ? <p className="mt-1 text-sm text-red-700">{fieldError}</p> : null}
        </div>
        <div className="flex items-center gap-2">
          <button
            type="submit"
            disabled={exchange.isPending || !hydrated}
            className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-60"
          >
            {exchange.isPending ? "Exchanging…" : "Exchange token"}
          </button>
          {demo ? (
            <button
              type="button"
              disabled={sandbox.isPending || !hydrated}
              onClick={() => sandbox.execute()}
              className="rounded-md border border-amber-300 bg-amber-50 px-3 py-1.5 text-sm text-amber-900 hover:bg-amber-100 disabled:opacity-60"
            >
              {sandbox.isPending ? "Creating…" : "Get a sandbox token"}
            </button>
          ) : null}
        </div>
        {sandbox.result.serverError ? (
          <p role="alert" className="text-sm text-red-700">
            {sandbox.result.serverError}
          </p>
        ) : null}
      </form>

      {exchange.result.serverError ? (
        <div role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900">
          <p className="font-medium">The exchange did not go through</p>
          <p className="mt-1">{exchange.result.serverError}</p>
          <p className="mt-1 text-xs">
            A token fails when it is unknown (mistyped or from another environment), was already exchanged, or its link
            is in a state that does not allow the exchange (for example deleted since).
          </p>
        </div>
      ) : null}

      {link ? (
        <div
          role="status"
          className="rounded-lg border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm text-emerald-900"
        >
          <p className="font-medium">Link created</p>
          <dl className="mt-2 grid grid-cols-[8rem_1fr] gap-x-3 gap-y-1">
            <dt>Link id</dt>
            <dd className="font-mono">
              {/* The new link's own page, where support reads it (an upstream id: encoded into the path). */}
              <Link
                className="text-indigo-700 underline"
                href={`/links/${encodeURIComponent(link.link_id)}`}
                data-testid="exchanged-link-id"
              >
                {link.link_id}
              </Link>
            </dd>
            <dt>Institution</dt>
            <dd>{link.institution_name}</dd>
            <dt>State</dt>
            <dd>{link.state}</dd>
            <dt>Provider</dt>
            <dd>{link.provider}</dd>
          </dl>
        </div>
      ) : null}
    </div>
  );
}
