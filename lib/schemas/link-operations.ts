import { z } from "zod";
import { httpUrl } from "../http/safe-url";
import { PRODUCTS, type Product } from "../upstream/schemas";

// Shared by the link page's three operations (their forms and buttons) and their server actions: sending a test
// webhook, refreshing products, and editing the link's tags and webhook.

// "." and ".." would name another resource in the upstream's address (the door refuses them too).
export const linkIdSchema = z
  .string()
  .trim()
  .min(1, "A link id is required")
  .max(200, "Not a link id")
  .refine((id) => id !== "." && id !== "..", "Not a link id");
const linkId = linkIdSchema;

export const PRODUCT_LABELS: Record<Product, string> = {
  accounts: "Accounts",
  account_numbers: "Account numbers",
  identity: "Identity",
  transactions: "Transactions",
  investments: "Investments",
  enrichment: "Enrichment",
};

// --- test webhook ---

/**
 * The events staff may have the upstream send as a test: the three kinds of webhook the upstream sends for real
 * (upstream-facts §11). Its test route also takes `product.state_changed`, which no real webhook is called.
 */
export const TEST_WEBHOOK_EVENTS = [
  "link.state_changed",
  "transactions.updates_available",
  "link.product_refresh",
] as const;
export type TestWebhookEvent = (typeof TEST_WEBHOOK_EVENTS)[number];

export const TEST_WEBHOOK_EVENT_INFO: Record<TestWebhookEvent, { label: string; meaning: string }> = {
  "link.state_changed": {
    label: "Link state changed",
    meaning: "The link's current state, as sent when it connects, breaks or is deleted.",
  },
  "transactions.updates_available": {
    label: "Transactions updates available",
    meaning: "New or changed transactions are ready to be read.",
  },
  "link.product_refresh": { label: "Product refreshed", meaning: "A product of the link finished refreshing." },
};

export const sendTestWebhookSchema = z.object({
  linkId,
  event: z.enum(TEST_WEBHOOK_EVENTS, { error: "Choose one of the events offered" }),
});

export type SendTestWebhookInput = z.infer<typeof sendTestWebhookSchema>;

// --- product refresh ---

export const refreshProductsSchema = z.object({
  linkId,
  products: z
    .array(z.enum(PRODUCTS, { error: "Not a product" }))
    .min(1, "Choose a product to refresh")
    .max(PRODUCTS.length)
    .refine((products) => new Set(products).size === products.length, "Name each product once"),
});

export type RefreshProductsInput = z.infer<typeof refreshProductsSchema>;

// --- tags and webhook ---

/** The upstream's limits (upstream-facts §3.5 UpdateLinkRequest): a webhook of at most 65,536 characters, tags under 100. */
export const WEBHOOK_MAX_LENGTH = 65_536;
export const TAG_MAX_LENGTH = 99;
/** Linkdesk's own bound: the upstream names none, and a link's tags are read on one screen. */
export const MAX_TAGS = 100;

/** The tags of the form's text: one a line, blank lines and surrounding spaces left out, each once. */
export function parseTagLines(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/\r\n|\r|\n/)
        .map((line) => line.trim())
        .filter((line) => line !== ""),
    ),
  ];
}

/** A tag list as the form writes it: one a line. */
export function tagLines(tags: readonly string[]): string {
  return tags.join("\n");
}

/** What is wrong with one tag, in words, or null. */
function tagProblem(tag: string): string | null {
  if (tag.length > TAG_MAX_LENGTH) return `is ${tag.length} characters long; a tag has at most ${TAG_MAX_LENGTH}`;
  if (!/^[A-Za-z0-9]/.test(tag)) return "must start with a letter or digit";
  if (/[\u0000-\u001f\u007f]/.test(tag)) return "holds a control character";
  return null;
}

/** What is wrong with a webhook address, in words, or null. An empty value means no webhook. */
function webhookProblem(value: string): string | null {
  if (value === "") return null;
  const url = httpUrl(value);
  if (!url || /\s/.test(value)) return "Enter a whole web address starting with https:// or http://";
  // Anything in the address shows on the link's page and in the audit trail: no password belongs there.
  const parsed = new URL(url);
  if (parsed.username || parsed.password)
    return "Leave the user name and password out of the address: it is shown on the link's page and in the audit trail";
  return null;
}

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value, i) => value === b[i]);

/**
 * The form edits both fields at once; the action sends only what changed. `seen` is what the page showed when the
 * person started: the action refuses the change if the link has changed upstream since (someone else's edit would be
 * overwritten), and only a field that differs from it is held to the upstream's rules, so a tag the upstream took
 * earlier that breaks them does not stop an edit of the webhook.
 */
export const updateLinkSchema = z
  .object({
    linkId,
    /** The webhook's address; empty to remove it. */
    webhook: z
      .string()
      .trim()
      .max(WEBHOOK_MAX_LENGTH, `The address is too long: the upstream takes at most ${WEBHOOK_MAX_LENGTH} characters`),
    /** The link's tags, one a line; empty to remove them all. */
    tags: z.string().max((TAG_MAX_LENGTH + 2) * (MAX_TAGS + 1), "Too many tags"),
    seen: z.object({
      webhook: z
        .string()
        .max(WEBHOOK_MAX_LENGTH * 2)
        .nullable(),
      tags: z.array(z.string().max(WEBHOOK_MAX_LENGTH)).max(10_000),
    }),
  })
  .superRefine((value, ctx) => {
    if (value.webhook !== (value.seen.webhook ?? "")) {
      const problem = webhookProblem(value.webhook);
      if (problem) ctx.addIssue({ code: "custom", path: ["webhook"], message: problem });
    }
    const tags = parseTagLines(value.tags);
    if (sameList(tags, value.seen.tags)) return;
    if (tags.length > MAX_TAGS) {
      ctx.addIssue({ code: "custom", path: ["tags"], message: `${tags.length} tags; a link has at most ${MAX_TAGS}` });
      return;
    }
    const problems = tags.flatMap((tag) => {
      const problem = tagProblem(tag);
      return problem ? [`“${tag.length > 40 ? `${tag.slice(0, 40)}…` : tag}” ${problem}`] : [];
    });
    if (problems.length > 0)
      ctx.addIssue({
        code: "custom",
        path: ["tags"],
        message: problems.slice(0, 3).join("; ") + (problems.length > 3 ? ` (and ${problems.length - 3} more)` : ""),
      });
  });

export type UpdateLinkInput = z.infer<typeof updateLinkSchema>;
export type UpdateLinkFields = z.input<typeof updateLinkSchema>;

/** The link's webhook and tags as the form starts from them. */
export function updateLinkDefaults(link: {
  link_id: string;
  webhook?: string | null;
  link_tags?: string[] | null;
}): UpdateLinkFields {
  const tags = link.link_tags ?? [];
  return {
    linkId: link.link_id,
    webhook: link.webhook ?? "",
    tags: tagLines(tags),
    seen: { webhook: link.webhook ?? null, tags },
  };
}
