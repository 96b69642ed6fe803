"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { useAction } from "next-safe-action/hooks";
import { useCallback } from "react";
import { useForm } from "react-hook-form";
import { HintHost } from "@/components/ui/hint";
import { useHydrated } from "@/components/ui/use-hydrated";
import { lookUpCustomer } from "@/lib/actions/discovery";
import { type CustomerLookupInput, customerLookupSchema } from "@/lib/schemas/discovery";
import { ErrorCodeCell, InstitutionCell, LinkIdCell, StateCell, linkCellHint } from "./cells";

// A customer's links by the customer's id (the product's customer_user.id): every link the upstream made for them, in
// any state, which the upstream's list of links leaves out when they are broken. Each link lands in Linkdesk's list
// too (learned by this lookup). Support and up; the action checks it again.

export function CustomerLookup() {
  const form = useForm<CustomerLookupInput>({
    resolver: zodResolver(customerLookupSchema),
    defaultValues: { customerId: "" },
  });
  const lookup = useAction(lookUpCustomer, {
    onError: ({ error }) => {
      const message = error.validationErrors?.fieldErrors?.customerId?.[0];
      if (message) form.setError("customerId", { type: "server", message });
    },
  });
  const hydrated = useHydrated();
  const hint = useCallback((key: string) => linkCellHint(key, () => undefined, Date.now()), []);
  const fieldError = form.formState.errors.customerId?.message;
  const found = lookup.hasSucceeded ? lookup.result.data : undefined;
  const failure =
    lookup.hasErrored && !lookup.result.validationErrors
      ? (lookup.result.serverError ?? "Linkdesk did not answer. Check your connection and try again.")
      : undefined;

  return (
    <div className="w-full">
      <form
        aria-label="Look up a customer's links"
        noValidate
        onSubmit={form.handleSubmit((values) => lookup.execute(values))}
        className="flex w-full items-center gap-2"
      >
        <label htmlFor="customer-id" className="shrink-0 text-sm font-medium text-slate-700">
          A customer&apos;s links
        </label>
        <input
          id="customer-id"
          autoComplete="off"
          spellCheck={false}
          placeholder="customer id, e.g. user_42"
          aria-invalid={fieldError ? true : undefined}
          aria-describedby={fieldError ? "customer-id-error" : undefined}
          className="block min-w-0 flex-1 rounded-md border border-slate-300 bg-white px-2.5 py-1.5 font-mono text-sm aria-[invalid=true]:border-red-400"
          {...form.register("customerId")}
        />
        <button
          type="submit"
          disabled={lookup.isPending || !hydrated}
          className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50 disabled:opacity-60"
        >
          {lookup.isPending ? "Looking up…" : "Look up"}
        </button>
      </form>
      {fieldError ? (
        <p id="customer-id-error" className="mt-1 text-sm text-red-700">
          {fieldError}
        </p>
      ) : null}
      {failure ? (
        <p role="alert" className="mt-2 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
          {failure}
        </p>
      ) : null}
      {found ? (
        <section
          aria-labelledby="customer-links-heading"
          className="mt-3 rounded-lg border border-slate-200 bg-white p-3"
          data-testid="customer-links"
        >
          <div className="flex items-baseline justify-between gap-3">
            <h2 id="customer-links-heading" className="text-sm font-semibold text-slate-900">
              Links of customer <span className="font-mono">{found.customerId}</span>
            </h2>
            <button
              type="button"
              onClick={() => lookup.reset()}
              className="text-xs text-slate-600 underline hover:text-slate-900"
            >
              Close
            </button>
          </div>
          {found.links.length === 0 ? (
            <p className="mt-2 text-sm text-slate-600">
              The upstream has no link for this customer id. Check the id: it is the one your product gave the customer
              (customer_user.id).
            </p>
          ) : (
            <>
              <p className="mt-1 text-xs text-slate-600">
                {found.links.length === 1 ? "1 link" : `${found.links.length} links`}, in any state (the upstream&apos;s
                list of links holds connected ones only).
                {newCount(found.links) > 0
                  ? ` ${newCount(found.links)} new to Linkdesk, now in the list below too.`
                  : " All of them were in Linkdesk's list already."}
              </p>
              <HintHost hint={hint}>
                <div className="overflow-x-auto">
                  <table className="mt-2 w-full text-left text-sm">
                    <thead className="text-xs text-slate-600">
                      <tr>
                        <th scope="col" className="py-1 pr-2 font-medium">
                          Link
                        </th>
                        <th scope="col" className="py-1 pr-2 font-medium">
                          Institution
                        </th>
                        <th scope="col" className="py-1 pr-2 font-medium">
                          State
                        </th>
                        <th scope="col" className="py-1 pr-2 font-medium">
                          Error
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {found.links.map((link) => (
                        <tr key={link.linkId} className="border-t border-slate-100 whitespace-nowrap">
                          <td className="py-1 pr-2">
                            <LinkIdCell linkId={link.linkId} />
                            {link.newToLinkdesk ? <span className="ml-1.5 text-xs text-emerald-700">new</span> : null}
                          </td>
                          <td className="py-1 pr-2">
                            <InstitutionCell
                              id={link.institutionId}
                              name={link.institutionName}
                              avatar={link.institutionAvatar}
                            />
                          </td>
                          <td className="py-1 pr-2">
                            <StateCell state={link.state} />
                          </td>
                          <td className="py-1 pr-2">
                            <ErrorCodeCell code={link.errorCode} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </HintHost>
            </>
          )}
        </section>
      ) : null}
    </div>
  );
}

const newCount = (links: { newToLinkdesk: boolean }[]) => links.filter((link) => link.newToLinkdesk).length;
