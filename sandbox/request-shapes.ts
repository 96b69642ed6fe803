// Request pieces more than one route reads, as the SDKs shape them (the spec shows few request shapes).
import { z } from "zod";

export const optionalText = z.string().nullish();
export const dateTime = z.iso.datetime({ offset: true, local: true });

/** CustomerUser (facts §7.1) on a link session and an import: only `id` is required. */
export const customerUserSchema = z.object({
  id: z.string().min(1),
  email: z.object({ address: z.string(), customer_verified_at: dateTime.nullish() }).nullish(),
  phone: z.object({ number: z.string(), country: optionalText, customer_verified_at: dateTime.nullish() }).nullish(),
});
