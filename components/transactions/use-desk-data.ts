"use client";

import { type QueryClient, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { correctCategory, undoCorrection } from "@/lib/actions/transactions";
import type { ObservedPair } from "@/lib/transactions/categories";
import type { CorrectCategoryInput } from "@/lib/schemas/transactions";
import type { DroppedTransactionParam } from "@/lib/transactions/filters";
import type { TransactionRow } from "@/lib/transactions/rows";
import type { CorrectionMark, TransactionsPage } from "@/lib/transactions/view";

// The desk's data in the browser, through TanStack Query: the filtered page (from the link's cached history on the
// server, so refetching costs no upstream call), and the corrections as mutations that show at once and roll back with
// the reason in words.

export type DeskPage = TransactionsPage & { dropped?: DroppedTransactionParam[] };

export const transactionsKey = (linkId: string, query: string) => ["transactions", linkId, query] as const;

async function fetchJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { cache: "no-store" });
  const body = (await response.json().catch(() => null)) as (T & { error?: string }) | null;
  if (!response.ok || body === null) throw new Error(body?.error ?? `Linkdesk answered HTTP ${response.status}.`);
  return body;
}

export function fetchTransactions(linkId: string, query: string, all = false): Promise<DeskPage> {
  const params = new URLSearchParams(query);
  if (all) params.set("all", "1");
  return fetchJson<DeskPage>(`/api/links/${encodeURIComponent(linkId)}/transactions?${params}`);
}

export function useTransactionsPage(linkId: string, query: string, initial: { query: string; page: DeskPage } | null) {
  return useQuery({
    queryKey: transactionsKey(linkId, query),
    queryFn: () => fetchTransactions(linkId, query),
    initialData: initial && initial.query === query ? initial.page : undefined,
    placeholderData: (previous) => previous,
    staleTime: 5_000,
  });
}

export function useCorrectionCost(linkId: string, calls: number) {
  return useQuery({
    queryKey: ["correction-cost", linkId, calls],
    queryFn: () =>
      fetchJson<{ calls: number; seconds: number; text: string }>(
        `/api/links/${encodeURIComponent(linkId)}/correction-cost?calls=${calls}`,
      ),
    staleTime: 5_000,
  });
}

/** A next-safe-action result as a value or an Error whose message is the reason in words. */
function unwrap<T>(result: { data?: T; serverError?: string; validationErrors?: unknown } | undefined): T {
  if (!result) throw new Error("No answer from Linkdesk. Check the connection and try again.");
  if (result.serverError) throw new Error(result.serverError);
  if (result.validationErrors) {
    const { formErrors = [], fieldErrors = {} } = result.validationErrors as {
      formErrors?: string[];
      fieldErrors?: Record<string, string[] | undefined>;
    };
    const messages = [...formErrors, ...Object.values(fieldErrors).flatMap((m) => m ?? [])];
    throw new Error(messages.join(" ") || "The input was refused.");
  }
  if (result.data === undefined) throw new Error("No answer from Linkdesk. Check the connection and try again.");
  return result.data;
}

type RowPatch = Partial<
  Pick<TransactionRow, "category" | "subcategory" | "categoryConfidence" | "subcategoryConfidence">
>;

/** Changes one transaction in every cached page of the link; answers what each page had, to put back on failure. */
function patchRow(
  client: QueryClient,
  linkId: string,
  id: string,
  patch: RowPatch | TransactionRow,
  mark?: CorrectionMark,
) {
  const previous: { key: readonly unknown[]; row: TransactionRow; mark: CorrectionMark | undefined }[] = [];
  for (const [key, page] of client.getQueriesData<DeskPage>({ queryKey: ["transactions", linkId] })) {
    const index = page?.rows.findIndex((r) => r.id === id) ?? -1;
    if (!page || index < 0) continue;
    previous.push({ key, row: page.rows[index]!, mark: page.marks[id] });
    const rows = page.rows.slice();
    rows[index] = { ...rows[index]!, ...patch };
    client.setQueryData<DeskPage>(key, { ...page, rows, marks: mark ? { ...page.marks, [id]: mark } : page.marks });
  }
  return previous;
}

function restoreRows(client: QueryClient, id: string, previous: ReturnType<typeof patchRow>) {
  for (const { key, row, mark } of previous) {
    client.setQueryData<DeskPage>(key, (page) => {
      if (!page) return page;
      const marks = { ...page.marks };
      if (mark) marks[id] = mark;
      else delete marks[id];
      return { ...page, rows: page.rows.map((r) => (r.id === id ? row : r)), marks };
    });
  }
}

const certain = (pair: ObservedPair): RowPatch => ({
  category: pair.category,
  subcategory: pair.subcategory ?? null,
  // A person's correction is certain: the upstream answers it with confidence 100.
  categoryConfidence: 100,
  subcategoryConfidence: pair.subcategory ? 100 : null,
});

/** One correction: the row shows the new category at once, and goes back to what it was if the correction fails. */
export function useCorrectTransaction(linkId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationKey: ["correct", linkId],
    mutationFn: async (input: CorrectCategoryInput) => unwrap(await correctCategory(input)),
    onMutate: async (input) => {
      await client.cancelQueries({ queryKey: ["transactions", linkId] });
      return { previous: patchRow(client, linkId, input.transactionId, certain(input)) };
    },
    onError: (_error, input, context) => restoreRows(client, input.transactionId, context?.previous ?? []),
    onSuccess: (data, input) => {
      patchRow(client, linkId, input.transactionId, data.updated ?? certain(input), data.mark);
    },
  });
}

/** Puts back what a correction replaced; refused in words when the transaction changed since. */
export function useUndoCorrection(linkId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationKey: ["undo", linkId],
    mutationFn: async (input: {
      correlationId: string;
      transactionId: string;
      date?: string;
      before: ObservedPair | null;
    }) => unwrap(await undoCorrection({ correlationId: input.correlationId, date: input.date })),
    onMutate: async (input) => {
      await client.cancelQueries({ queryKey: ["transactions", linkId] });
      return {
        previous: input.before ? patchRow(client, linkId, input.transactionId, { ...certain(input.before) }) : [],
      };
    },
    onError: (_error, input, context) => restoreRows(client, input.transactionId, context?.previous ?? []),
    onSuccess: (data, input) => {
      patchRow(client, linkId, input.transactionId, data.updated ?? {}, data.mark);
    },
  });
}
